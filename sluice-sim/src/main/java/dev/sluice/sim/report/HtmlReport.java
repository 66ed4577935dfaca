package dev.sluice.sim.report;

import dev.sluice.sim.Headline;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.VariantResult;
import dev.sluice.sim.scenario.Scenario;
import java.util.List;

/**
 * The one-page report (SPEC §7.3): the scenario, every variant's settings, the headline figures,
 * the grid table when there is one, and the chart inline. No script, no stylesheet or font from
 * elsewhere: it opens offline. Deterministic. Stateless; thread-safe.
 */
public final class HtmlReport {

    private HtmlReport() {
    }

    public static String render(SimulationResult result) {
        Scenario s = result.scenario();
        StringBuilder h = new StringBuilder(128 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>sluice simulate: ")
                .append(x(s.name())).append("</title>\n<style>\n")
                .append("body{font-family:Helvetica,Arial,sans-serif;margin:2em auto;max-width:60em;color:#222}\n")
                .append("table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.25em .6em;")
                .append("text-align:right;font-size:.9em}th{background:#f3f3f3}td.k,th.k{text-align:left}\n")
                .append("code{background:#f3f3f3;padding:0 .2em}\n</style>\n</head>\n<body>\n");
        h.append("<h1>").append(x(s.name())).append("</h1>\n<p>").append(x(s.description())).append("</p>\n");
        h.append("<p>Source <code>").append(x(s.source())).append("</code>, seed ").append(result.seed())
                .append(", ").append(Settings.d(s.duration())).append(" simulated per variant; headline figures over ")
                .append(Settings.d(s.measureFrom())).append(" to ").append(Settings.d(s.measureTo()))
                .append(". Each client is a real <code>sluice-client</code> core; the edge is the real ")
                .append("<code>sluice-limiter</code> store; all on one simulated clock.</p>\n");

        h.append("<h2>Chart</h2>\n").append(SvgChart.render(result));

        if (s.grid() != null) {
            h.append("<h2>").append(x(s.grid().metric())).append(" by ").append(x(s.grid().rowLabel())).append(" and ")
                    .append(x(s.grid().columnLabel())).append("</h2>\n").append(gridTable(result));
        }

        h.append("<h2>Headline figures</h2>\n<table>\n<tr><th class=\"k\">figure</th>");
        for (VariantResult v : result.variants()) {
            h.append("<th>").append(x(v.variant().name())).append("</th>");
        }
        h.append("</tr>\n");
        for (String m : Headline.METRICS) {
            h.append("<tr><td class=\"k\">").append(m).append("</td>");
            for (VariantResult v : result.variants()) {
                h.append("<td>").append(Numbers.fixed(v.headline().get(m), 3)).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("<tr><td class=\"k\">Little's law, L = λ × W</td>");
        for (VariantResult v : result.variants()) {
            String little = TerminalTable.littlesLaw(v.headline());
            h.append("<td>").append(little == null ? "-" : x(little.substring(little.indexOf("L = ")))).append("</td>");
        }
        h.append("</tr>\n</table>\n");

        h.append("<h2>Settings</h2>\n");
        for (VariantResult v : result.variants()) {
            h.append("<h3>").append(x(v.variant().name())).append("</h3>\n<table>\n");
            for (String[] row : Settings.of(v.variant())) {
                h.append("<tr><td class=\"k\">").append(x(row[0])).append("</td><td class=\"k\">").append(x(row[1]))
                        .append("</td></tr>\n");
            }
            h.append("</table>\n");
        }
        h.append("<p>Per-second series: <code>series.csv</code> beside this page.</p>\n</body>\n</html>\n");
        return h.toString();
    }

    /** The grid's metric as an HTML table (rows × columns), with the expected value when given. */
    static String gridTable(SimulationResult result) {
        Scenario.Grid g = result.scenario().grid();
        StringBuilder t = new StringBuilder("<table>\n<tr><th class=\"k\">").append(x(g.rowLabel())).append(" \\ ")
                .append(x(g.columnLabel())).append("</th>");
        for (String c : g.columns()) {
            t.append("<th>").append(x(c)).append("</th>");
        }
        t.append("</tr>\n");
        List<VariantResult> v = result.variants();
        for (int r = 0; r < g.rows().size(); r++) {
            t.append("<tr><td class=\"k\">").append(x(g.rows().get(r))).append("</td>");
            for (int c = 0; c < g.columns().size(); c++) {
                int i = r * g.columns().size() + c;
                t.append("<td>").append(Numbers.fixed(v.get(i).headline().get(g.metric()), 3));
                if (i < g.expected().size()) {
                    t.append(" <small>(").append(Numbers.format(g.expected().get(i))).append(")</small>");
                }
                t.append("</td>");
            }
            t.append("</tr>\n");
        }
        return t.append("</table>\n").append(g.expected().isEmpty() ? "" : "<p>In brackets: the expected value.</p>\n")
                .toString();
    }

    private static String x(String s) {
        return SvgChart.xml(s);
    }
}
