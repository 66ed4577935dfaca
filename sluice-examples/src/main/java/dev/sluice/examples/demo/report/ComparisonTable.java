package dev.sluice.examples.demo.report;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.fleet.ClientKind;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The comparison of the headline figures ({@link Headline}) as text: one row per figure, one column
 * per client, then one line per figure saying whether the Sluice SDK is ahead of the others and by
 * how much. The same rows head the HTML report. Stateless.
 */
public final class ComparisonTable {

    private ComparisonTable() {
    }

    /** One headline figure: its name, how it is shown, and which way is better. */
    record Figure(String name, Function<Headline, String> shown, ToDoubleFunction<Headline> value, boolean lowerIsBetter,
            Function<Headline, String> margin) {
    }

    /** The figures, in the order of the table. */
    static List<Figure> figures() {
        return List.of(
                new Figure("peak offered, attempts/s (x the limit)",
                        h -> String.format(Locale.ROOT, "%,d  %.2fx", h.peakOffered(), h.peakRatio()),
                        Headline::peakRatio, true, h -> String.format(Locale.ROOT, "%.2fx", h.peakRatio())),
                new Figure("  peak x normal traffic (5 s before)",
                        h -> String.format(Locale.ROOT, "%.2fx", h.peakVsNormal()),
                        Headline::peakVsNormal, true, h -> String.format(Locale.ROOT, "%.2fx", h.peakVsNormal())),
                new Figure("  peak in the blip's seconds",
                        h -> String.format(Locale.ROOT, "%,d  %.2fx", h.peakOfferedInBlip(), h.peakInBlipRatio()),
                        Headline::peakInBlipRatio, true, h -> String.format(Locale.ROOT, "%.2fx", h.peakInBlipRatio())),
                new Figure("retries in the blip / calls made then",
                        h -> percent(h.retryShareInBlip()), Headline::retryShareInBlip, true,
                        h -> percent(h.retryShareInBlip())),
                new Figure("wire 429s", h -> String.format(Locale.ROOT, "%,d", h.wire429()), Headline::wire429, true,
                        h -> String.format(Locale.ROOT, "%,d", h.wire429())),
                new Figure("useful labels/s (once per order)",
                        h -> String.format(Locale.ROOT, "%.1f", h.labelsPerSecond()), Headline::labelsPerSecond, false,
                        h -> String.format(Locale.ROOT, "%.1f/s", h.labelsPerSecond())),
                new Figure("calls succeeded / calls made",
                        h -> String.format(Locale.ROOT, "%s of %,d", percent(h.successShare()), h.callsMade()),
                        Headline::successShare, false, h -> percent(h.successShare())),
                new Figure("back to normal after the blip",
                        h -> seconds(h.recoverySeconds()), h -> h.recoverySeconds().orElse(Integer.MAX_VALUE), true,
                        h -> seconds(h.recoverySeconds())),
                new Figure("labels bought twice", h -> String.format(Locale.ROOT, "%,d", h.duplicateLabels()),
                        Headline::duplicateLabels, true, h -> String.format(Locale.ROOT, "%,d", h.duplicateLabels())));
    }

    /** The table, then the SDK's standing (when the SDK and another client ran), as lines of text. */
    public static List<String> lines(ComparisonReport report) {
        List<RunReport> runs = report.runs();
        List<Headline> h = report.headlines();
        List<String> lines = new ArrayList<>();
        if (runs.isEmpty()) {
            return lines;
        }
        double limit = runs.get(0).limitPerSecond();
        lines.add(String.format(Locale.ROOT, "comparison: the same fleet, edge and blip; the limit is %,.0f units/s"
                + " (the sum of the fleet's keys' burst rates)", limit));
        StringBuilder head = new StringBuilder(String.format(Locale.ROOT, "%-40s", ""));
        for (RunReport r : runs) {
            head.append(String.format(Locale.ROOT, " %18s", r.client().label()));
        }
        lines.add(head.toString());
        for (Figure f : figures()) {
            StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-40s", f.name()));
            for (Headline x : h) {
                row.append(String.format(Locale.ROOT, " %18s", f.shown().apply(x)));
            }
            lines.add(row.toString());
        }
        StringBuilder esc = new StringBuilder(String.format(Locale.ROOT, "%-40s", "edge: requests escalated (SPEC 3.12)"));
        for (RunReport r : runs) {
            esc.append(String.format(Locale.ROOT, " %18s", String.format(Locale.ROOT, "%,d", r.escalated())));
        }
        lines.add(esc.toString());
        lines.addAll(standing(runs, h));
        return lines;
    }

    /**
     * One line per figure: the SDK ahead of every other client, level (no worse than any, tied with
     * one), or behind, with the figures.
     */
    static List<String> standing(List<RunReport> runs, List<Headline> h) {
        int sdk = -1;
        for (int i = 0; i < runs.size(); i++) {
            if (runs.get(i).client() == ClientKind.SDK) {
                sdk = i;
            }
        }
        List<String> lines = new ArrayList<>();
        if (sdk < 0 || runs.size() < 2) {
            return lines;
        }
        List<String> behind = new ArrayList<>();
        for (Figure f : figures()) {
            double mine = f.value().applyAsDouble(h.get(sdk));
            StringBuilder others = new StringBuilder();
            boolean ahead = true;
            boolean level = false;
            for (int i = 0; i < runs.size(); i++) {
                if (i == sdk) {
                    continue;
                }
                double theirs = f.value().applyAsDouble(h.get(i));
                ahead &= f.lowerIsBetter() ? mine <= theirs : mine >= theirs;
                level |= mine == theirs;
                others.append(others.isEmpty() ? "" : ", ").append(runs.get(i).client().label()).append(' ')
                        .append(f.margin().apply(h.get(i)));
            }
            // "level": no worse than any other, and tied with at least one (0 duplicates against 0)
            String standing = !ahead ? "BEHIND" : level ? "level" : "ahead";
            String line = String.format(Locale.ROOT, "  %-6s %s: Sluice SDK %s; %s", standing,
                    f.name().strip(), f.margin().apply(h.get(sdk)), others);
            lines.add(line);
            if (!ahead) {
                behind.add(f.name().strip());
            }
        }
        lines.add(0, behind.isEmpty() ? "the Sluice SDK is ahead of (or level with) every other client on every headline:"
                : "the Sluice SDK is behind on " + behind.size() + " headline(s): " + String.join("; ", behind));
        why(runs, h, sdk).filter(w -> !behind.isEmpty()).ifPresent(lines::add);
        return lines;
    }

    /**
     * Why the SDK can be behind on useful work: the calls its retry budget left unretried (SPEC §4.2:
     * retries at most 10 % of the calls), against the other clients' retries in the blip and peaks;
     * empty when the budget refused nothing.
     */
    static Optional<String> why(List<RunReport> runs, List<Headline> h, int sdk) {
        RunReport mine = runs.get(sdk);
        long refused = mine.calls().get(CallResult.Kind.BUDGET_EXHAUSTED);
        if (refused == 0) {
            return Optional.empty();
        }
        long inBlip = 0;
        for (SecondCounts c : mine.seconds()) {
            if (mine.inBlip(c.second())) {
                inBlip += c.get(Series.BUDGET_EXHAUSTED);
            }
        }
        StringBuilder others = new StringBuilder();
        for (int i = 0; i < runs.size(); i++) {
            if (i != sdk) {
                others.append(others.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT,
                        "%s %s of the calls made in the blip, peak %.2fx the limit", runs.get(i).client().label(),
                        percent(h.get(i).retryShareInBlip()), h.get(i).peakRatio()));
            }
        }
        return Optional.of(String.format(Locale.ROOT, "  why: the SDK's retry budget (SPEC 4.2: retries"
                + " at most 10 %% of the calls) found no room before their deadline for the retry of %,d calls (%,d of"
                + " them made in the blip's seconds); the others retry every such call (retries %s), which this"
                + " run's Shiplane absorbed", refused, inBlip, others));
    }

    static String percent(double share) {
        return String.format(Locale.ROOT, "%.1f %%", 100 * share);
    }

    static String seconds(OptionalInt s) {
        return s.isPresent() ? s.getAsInt() + " s" : "not in the run";
    }
}
