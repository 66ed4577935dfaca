package dev.sluice.sim.report;

import dev.sluice.sim.Headline;
import dev.sluice.sim.SecondRow;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.VariantResult;
import dev.sluice.sim.scenario.Scenario;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/**
 * The terminal output of {@code sluice simulate}: per variant, a per-second table and the headline
 * figures; for a grid scenario, the grid's metric as one table (the per-second series of a grid's
 * many variants belong in {@code --json} or {@code --out}). Deterministic. Stateless; thread-safe.
 */
public final class TerminalTable {

    private static final String HEADER = String.format(Locale.ROOT, "%6s %8s %8s %8s %8s %8s %7s %9s %8s %9s %11s %11s",
            "second", "calls", "requests", "retries", "accepts", "rejected", "drops", "successes", "failures",
            "waiting", "lat_mean_ms", "lat_p99_ms");

    private TerminalTable() {
    }

    /**
     * Prints {@code result}.
     *
     * @param perSecond whether to print the per-second rows (else headline figures only)
     */
    public static void print(SimulationResult result, PrintWriter out, boolean perSecond) {
        Scenario s = result.scenario();
        out.printf(Locale.ROOT, "%s (seed %d): %d variant(s), %s simulated each%n", s.name(), result.seed(),
                s.variants().size(), Settings.d(s.duration()));
        if (s.grid() != null) {
            grid(result, out);
            out.flush();
            return;
        }
        for (VariantResult v : result.variants()) {
            out.println();
            out.println("== " + v.variant().name());
            if (perSecond) {
                out.println(HEADER);
                for (SecondRow r : v.rows()) {
                    out.printf(Locale.ROOT, "%6d %8d %8d %8d %8d %8d %7d %9d %8d %9s %11s %11s%n", r.second(), r.calls(),
                            r.requests(), r.retries(), r.accepts(), r.rejected(), r.drops(), r.successes(), r.failures(),
                            Numbers.fixed(r.waiting(), 1), Numbers.fixed(r.latencyMeanMillis(), 0),
                            Numbers.fixed(r.latencyP99Millis(), 0));
                }
            }
            headline(v.headline(), s, out);
        }
        out.flush();
    }

    /** Headline figures in aligned columns, three to a line, then Little's law when the run has a queue. */
    static void headline(Headline h, Scenario s, PrintWriter out) {
        out.printf(Locale.ROOT, "headline (%s to %s):", Settings.d(s.measureFrom()), Settings.d(s.measureTo()));
        int nameWidth = Headline.METRICS.stream().mapToInt(String::length).max().orElse(0);
        int n = 0;
        for (String m : Headline.METRICS) {
            double v = h.get(m);
            if (Double.isNaN(v)) {
                continue;
            }
            out.print((n++ % 3 == 0) ? "\n  " : "   ");
            // recovery_s is -1 when the load never settles within the run: say so rather than print -1
            String shown = m.equals("recovery_s") && v < 0 ? "never" : Numbers.format(Math.round(v * 1000) / 1000.0);
            out.printf(Locale.ROOT, "%-" + nameWidth + "s %10s", m, shown);
        }
        out.println();
        String little = littlesLaw(h);
        if (little != null) {
            out.println("  " + little);
        }
    }

    /**
     * Little's law over the measure window, {@code L = λ × W}, for the calls waiting in clients:
     * the time-averaged count waiting against the entry rate times the mean wait; {@code null}
     * when nothing waited.
     */
    static String littlesLaw(Headline h) {
        double l = h.get("waiting_mean");
        double lambda = h.get("wait_entries_per_s");
        double w = h.get("wait_mean_ms") / 1000;
        if (Double.isNaN(l) || Double.isNaN(lambda) || Double.isNaN(w) || lambda == 0) {
            return null;
        }
        return String.format(Locale.ROOT, "Little's law: L = %s calls waiting; λ × W = %s/s × %s s = %s", Numbers.fixed(l, 1),
                Numbers.fixed(lambda, 2), Numbers.fixed(w, 2), Numbers.fixed(lambda * w, 1));
    }

    /**
     * The grid's metric as a table, measured value with the expected one in brackets. Printed with
     * the longer dimension down the page (a grid of 2 K values × 11 accept ratios is 11 lines of 2
     * cells, not 2 lines of 11), every column as wide as its widest cell.
     */
    static void grid(SimulationResult result, PrintWriter out) {
        Scenario.Grid g = result.scenario().grid();
        int rows = g.rows().size();
        int columns = g.columns().size();
        boolean transpose = columns > rows;
        String[][] cells = new String[rows][columns];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < columns; c++) {
                int i = r * columns + c;
                String cell = Numbers.fixed(result.variants().get(i).headline().get(g.metric()), 3);
                if (i < g.expected().size()) {
                    cell += " (" + Numbers.fixed(g.expected().get(i), 2) + ")";
                }
                cells[r][c] = cell;
            }
        }
        String downLabel = transpose ? g.columnLabel() : g.rowLabel();
        String acrossLabel = transpose ? g.rowLabel() : g.columnLabel();
        List<String> down = transpose ? g.columns() : g.rows();
        List<String> across = transpose ? g.rows() : g.columns();
        out.println();
        out.printf(Locale.ROOT, "%s by %s (rows) and %s (columns); expected in brackets%n", g.metric(), downLabel,
                acrossLabel);
        int first = downLabel.length();
        for (String d : down) {
            first = Math.max(first, d.length());
        }
        int[] widths = new int[across.size()];
        for (int a = 0; a < across.size(); a++) {
            widths[a] = (acrossLabel + " = " + across.get(a)).length();
            for (int d = 0; d < down.size(); d++) {
                widths[a] = Math.max(widths[a], (transpose ? cells[a][d] : cells[d][a]).length());
            }
        }
        out.printf(Locale.ROOT, "%-" + first + "s", downLabel);
        for (int a = 0; a < across.size(); a++) {
            out.printf(Locale.ROOT, "  %" + widths[a] + "s", acrossLabel + " = " + across.get(a));
        }
        out.println();
        for (int d = 0; d < down.size(); d++) {
            out.printf(Locale.ROOT, "%-" + first + "s", down.get(d));
            for (int a = 0; a < across.size(); a++) {
                out.printf(Locale.ROOT, "  %" + widths[a] + "s", transpose ? cells[a][d] : cells[d][a]);
            }
            out.println();
        }
    }
}
