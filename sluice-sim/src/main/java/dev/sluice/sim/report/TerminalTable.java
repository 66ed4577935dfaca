package dev.sluice.sim.report;

import dev.sluice.sim.Headline;
import dev.sluice.sim.SecondRow;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.VariantResult;
import dev.sluice.sim.scenario.Scenario;
import java.io.PrintWriter;
import java.util.Locale;

/**
 * The terminal output of {@code sluice simulate}: per variant, a per-second table and the headline
 * figures; for a grid scenario, the grid's metric as one table (the per-second series of a grid's
 * many variants belong in {@code --json} or {@code --out}). Deterministic. Stateless; thread-safe.
 */
public final class TerminalTable {

    private static final String HEADER = String.format(Locale.ROOT, "%6s %8s %8s %8s %8s %8s %7s %9s %8s %9s %10s %10s",
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
                    out.printf(Locale.ROOT, "%6d %8d %8d %8d %8d %8d %7d %9d %8d %9s %10s %10s%n", r.second(), r.calls(),
                            r.requests(), r.retries(), r.accepts(), r.rejected(), r.drops(), r.successes(), r.failures(),
                            Numbers.fixed(r.waiting(), 1), Numbers.fixed(r.latencyMeanMillis(), 0),
                            Numbers.fixed(r.latencyP99Millis(), 0));
                }
            }
            headline(v.headline(), s, out);
        }
        out.flush();
    }

    private static void headline(Headline h, Scenario s, PrintWriter out) {
        out.printf(Locale.ROOT, "headline (%s to %s):", Settings.d(s.measureFrom()), Settings.d(s.measureTo()));
        int n = 0;
        for (String m : Headline.METRICS) {
            double v = h.get(m);
            if (Double.isNaN(v)) {
                continue;
            }
            out.print((n++ % 4 == 0) ? "\n  " : "  ");
            out.printf(Locale.ROOT, "%-24s", m + " " + Numbers.format(Math.round(v * 1000) / 1000.0));
        }
        out.println();
    }

    private static void grid(SimulationResult result, PrintWriter out) {
        Scenario.Grid g = result.scenario().grid();
        out.println();
        out.printf(Locale.ROOT, "%s by %s (rows) and %s (columns); expected in brackets%n", g.metric(), g.rowLabel(),
                g.columnLabel());
        out.printf(Locale.ROOT, "%8s", g.rowLabel());
        for (String c : g.columns()) {
            out.printf(Locale.ROOT, " %14s", c);
        }
        out.println();
        for (int r = 0; r < g.rows().size(); r++) {
            out.printf(Locale.ROOT, "%8s", g.rows().get(r));
            for (int c = 0; c < g.columns().size(); c++) {
                int i = r * g.columns().size() + c;
                String cell = Numbers.fixed(result.variants().get(i).headline().get(g.metric()), 3);
                if (i < g.expected().size()) {
                    cell += " (" + Numbers.fixed(g.expected().get(i), 2) + ")";
                }
                out.printf(Locale.ROOT, " %14s", cell);
            }
            out.println();
        }
    }
}
