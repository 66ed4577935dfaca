package dev.sluice.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Raw per-round numbers of every case of one benchmark, kept in the order they were run (rounds are
 * interleaved A B A B), and the Markdown that reports them: the raw values, their median, and the
 * ratio Sluice/peer of the medians.
 */
public final class Table {

    private final String unit;
    private final boolean higherIsBetter;
    private final Map<String, List<Double>> rounds = new LinkedHashMap<>();

    /**
     * @param unit the unit of every value (e.g. {@code ops/µs}, {@code B/key})
     * @param higherIsBetter whether a larger value is better (throughput) or worse (bytes, latency)
     */
    public Table(String unit, boolean higherIsBetter) {
        this.unit = unit;
        this.higherIsBetter = higherIsBetter;
    }

    /** Adds one round's value of {@code label}. */
    public void add(String label, double value) {
        rounds.computeIfAbsent(label, k -> new ArrayList<>()).add(value);
    }

    /** {@code label}'s values in the order they were added (empty when it has none). */
    public List<Double> values(String label) {
        return List.copyOf(rounds.getOrDefault(label, List.of()));
    }

    /** The median of {@code label}'s rounds; NaN when it has none. */
    public double median(String label) {
        List<Double> v = rounds.get(label);
        if (v == null || v.isEmpty()) {
            return Double.NaN;
        }
        double[] a = v.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(a);
        int n = a.length;
        return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    }

    /** {@code median(sluice) / median(peer)}. */
    public double ratio(String sluice, String peer) {
        return median(sluice) / median(peer);
    }

    /** The raw-numbers table: one row per case, every round, and the median. */
    public String rawMarkdown() {
        StringBuilder sb = new StringBuilder();
        sb.append("| case | median (").append(unit).append(") | rounds, in run order |\n|---|---:|---|\n");
        rounds.forEach((label, values) -> sb.append("| ").append(label).append(" | ")
                .append(fmt(median(label))).append(" | ")
                .append(values.stream().map(Table::fmt).collect(Collectors.joining(", "))).append(" |\n"));
        return sb.toString();
    }

    /**
     * A ratio table row: Sluice's case against a peer's, with a verdict against {@code target} (a
     * minimum ratio when higher is better, a maximum otherwise; NaN for none).
     */
    public String ratioRow(String what, String sluice, String peer, double target) {
        double r = ratio(sluice, peer);
        String verdict;
        if (Double.isNaN(target)) {
            verdict = "—";
        } else {
            boolean met = higherIsBetter ? r >= target : r <= target;
            verdict = (met ? "met" : "missed") + " (target " + (higherIsBetter ? "≥ " : "≤ ") + fmt(target) + "×)";
        }
        String row = "| " + what + " | " + fmt(median(sluice)) + " | " + fmt(median(peer)) + " | "
                + String.format(Locale.ROOT, "%.2f×", r) + " | " + verdict + " |\n";
        if (!Double.isNaN(target)) {
            row += target(what + " (Sluice/peer)", (higherIsBetter ? "≥ " : "≤ ") + fmt(target) + "×",
                    String.format(Locale.ROOT, "%.2f×", r), higherIsBetter ? r >= target : r <= target);
        }
        return row;
    }

    /**
     * A line for {@code bench/results/SUMMARY.md} (collected by {@code bench/summary.sh}), invisible in
     * the rendered file.
     */
    public static String target(String what, String target, String measured, boolean met) {
        return "<!-- target | " + what + " | " + target + " | " + measured + " | " + (met ? "met" : "missed") + " -->\n";
    }

    /** The header of a ratio table. */
    public String ratioHeader(String peerName) {
        return "| comparison | Sluice (" + unit + ") | " + peerName + " (" + unit + ") | Sluice/peer | target |\n"
                + "|---|---:|---:|---:|---|\n";
    }

    /** A number with 3 significant digits (at least), without exponent. */
    public static String fmt(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        if (a >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }
}
