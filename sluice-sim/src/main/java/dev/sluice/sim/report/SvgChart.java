package dev.sluice.sim.report;

import dev.sluice.sim.SecondRow;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.VariantResult;
import dev.sluice.sim.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Draws a result as a self-contained SVG (SPEC §7.3), with no script and no external resource.
 *
 * <ul>
 *   <li>Ordinary scenarios: one panel per variant, stacked, sharing both axes, each with four lines
 *       per simulated second (requests, accepts, retries, drops), labelled axes and a legend.</li>
 *   <li>Grid scenarios: the grid's metric against the columns, one line per row, with the expected
 *       values dashed.</li>
 * </ul>
 *
 * Deterministic: the same result gives the same bytes. Stateless; thread-safe.
 */
public final class SvgChart {

    private static final int WIDTH = 760;
    private static final int PANEL_HEIGHT = 230;
    private static final int LEFT = 70;
    private static final int RIGHT = 20;
    private static final int TOP = 74;
    private static final int GAP = 64;
    private static final String FONT = "font-family=\"Helvetica, Arial, sans-serif\"";

    /** One line of a panel. */
    private record Line(String label, String colour, String dash, ToDoubleFunction<SecondRow> value) {
    }

    private static final List<Line> LINES = List.of(
            new Line("requests", "#1f77b4", null, SecondRow::requests),
            new Line("accepts", "#2ca02c", null, SecondRow::accepts),
            new Line("retries", "#ff7f0e", "6 3", SecondRow::retries),
            new Line("drops", "#d62728", "2 2", SecondRow::drops));

    private static final String[] ROW_COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

    private SvgChart() {
    }

    /** The chart of {@code result}. */
    public static String render(SimulationResult result) {
        return result.scenario().grid() != null ? grid(result) : series(result);
    }

    private static String series(SimulationResult result) {
        List<VariantResult> variants = result.variants();
        int panels = variants.size();
        int height = TOP + panels * PANEL_HEIGHT + (panels - 1) * GAP + 50;
        int seconds = variants.get(0).rows().size();
        double max = 1;
        for (VariantResult v : variants) {
            for (SecondRow r : v.rows()) {
                for (Line l : LINES) {
                    max = Math.max(max, l.value().applyAsDouble(r));
                }
            }
        }
        double[] ticks = ticks(max);
        double yMax = ticks[ticks.length - 1];
        StringBuilder svg = header(height, result.scenario().name() + " (seed " + result.seed() + ")");
        legend(svg, LINES.stream().map(l -> new String[] {l.label(), l.colour(), l.dash()}).toList());
        int plotWidth = WIDTH - LEFT - RIGHT;
        for (int p = 0; p < panels; p++) {
            VariantResult v = variants.get(p);
            int top = TOP + p * (PANEL_HEIGHT + GAP);
            int bottom = top + PANEL_HEIGHT;
            svg.append("<text x=\"").append(LEFT).append("\" y=\"").append(top - 8).append("\" ").append(FONT)
                    .append(" font-size=\"13\" font-weight=\"bold\">").append(xml(v.variant().name())).append("</text>\n");
            axes(svg, top, bottom, ticks, yMax, "per second");
            double[] xTicks = ticks(seconds);
            for (double t : xTicks) {
                if (t > seconds) {
                    continue;
                }
                double x = LEFT + t / seconds * plotWidth;
                svg.append("<line x1=\"").append(f(x)).append("\" y1=\"").append(bottom).append("\" x2=\"").append(f(x))
                        .append("\" y2=\"").append(bottom + 4).append("\" stroke=\"#333\"/>\n");
                svg.append("<text x=\"").append(f(x)).append("\" y=\"").append(bottom + 17).append("\" ").append(FONT)
                        .append(" font-size=\"11\" text-anchor=\"middle\">").append(Numbers.format(t)).append("</text>\n");
            }
            svg.append("<text x=\"").append(LEFT + plotWidth / 2).append("\" y=\"").append(bottom + 34).append("\" ")
                    .append(FONT).append(" font-size=\"12\" text-anchor=\"middle\">simulated second</text>\n");
            for (Line l : LINES) {
                StringBuilder points = new StringBuilder();
                for (SecondRow r : v.rows()) {
                    // each second's count drawn as a step over [s, s + 1)
                    double y = bottom - l.value().applyAsDouble(r) / yMax * PANEL_HEIGHT;
                    double x0 = LEFT + (double) r.second() / seconds * plotWidth;
                    double x1 = LEFT + (double) (r.second() + 1) / seconds * plotWidth;
                    points.append(f(x0)).append(',').append(f(y)).append(' ').append(f(x1)).append(',').append(f(y)).append(' ');
                }
                polyline(svg, points.toString().strip(), l.colour(), l.dash(), l.label() + " per second");
            }
        }
        return svg.append("</svg>\n").toString();
    }

    private static String grid(SimulationResult result) {
        Scenario.Grid g = result.scenario().grid();
        int columns = g.columns().size();
        int height = TOP + PANEL_HEIGHT + 60;
        double max = 0;
        for (VariantResult v : result.variants()) {
            double m = v.headline().get(g.metric());
            if (!Double.isNaN(m)) {
                max = Math.max(max, m);
            }
        }
        for (double e : g.expected()) {
            if (!Double.isNaN(e)) {
                max = Math.max(max, e);
            }
        }
        double[] ticks = ticks(max <= 0 ? 1 : max);
        double yMax = ticks[ticks.length - 1];
        StringBuilder svg = header(height, result.scenario().name() + ": " + g.metric() + " by " + g.columnLabel()
                + " (seed " + result.seed() + ")");
        List<String[]> legend = new ArrayList<>();
        for (int r = 0; r < g.rows().size(); r++) {
            legend.add(new String[] {g.rowLabel() + " = " + g.rows().get(r), ROW_COLOURS[r % ROW_COLOURS.length], null});
        }
        if (!g.expected().isEmpty()) {
            legend.add(new String[] {"expected", "#777", "5 4"});
        }
        legend(svg, legend);
        int top = TOP;
        int bottom = top + PANEL_HEIGHT;
        int plotWidth = WIDTH - LEFT - RIGHT;
        axes(svg, top, bottom, ticks, yMax, g.metric());
        for (int c = 0; c < columns; c++) {
            double x = LEFT + (columns == 1 ? 0.5 : (double) c / (columns - 1)) * plotWidth;
            svg.append("<text x=\"").append(f(x)).append("\" y=\"").append(bottom + 17).append("\" ").append(FONT)
                    .append(" font-size=\"11\" text-anchor=\"middle\">").append(xml(g.columns().get(c))).append("</text>\n");
        }
        svg.append("<text x=\"").append(LEFT + plotWidth / 2).append("\" y=\"").append(bottom + 36).append("\" ").append(FONT)
                .append(" font-size=\"12\" text-anchor=\"middle\">").append(xml(g.columnLabel())).append("</text>\n");
        for (int r = 0; r < g.rows().size(); r++) {
            StringBuilder measured = new StringBuilder();
            StringBuilder expected = new StringBuilder();
            for (int c = 0; c < columns; c++) {
                double x = LEFT + (columns == 1 ? 0.5 : (double) c / (columns - 1)) * plotWidth;
                double m = result.variants().get(r * columns + c).headline().get(g.metric());
                if (!Double.isNaN(m)) {
                    measured.append(f(x)).append(',').append(f(bottom - m / yMax * PANEL_HEIGHT)).append(' ');
                }
                int i = r * columns + c;
                if (i < g.expected().size() && !Double.isNaN(g.expected().get(i))) {
                    expected.append(f(x)).append(',').append(f(bottom - g.expected().get(i) / yMax * PANEL_HEIGHT)).append(' ');
                }
            }
            String colour = ROW_COLOURS[r % ROW_COLOURS.length];
            if (!expected.isEmpty()) {
                polyline(svg, expected.toString().strip(), "#777", "5 4", "expected, " + g.rowLabel() + " = " + g.rows().get(r));
            }
            polyline(svg, measured.toString().strip(), colour, null, g.rowLabel() + " = " + g.rows().get(r));
        }
        return svg.append("</svg>\n").toString();
    }

    private static StringBuilder header(int height, String title) {
        StringBuilder svg = new StringBuilder(64 * 1024);
        svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(height).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(height).append("\">\n");
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n");
        svg.append("<text x=\"").append(LEFT).append("\" y=\"18\" ").append(FONT).append(" font-size=\"15\">")
                .append(xml(title)).append("</text>\n");
        return svg;
    }

    private static void legend(StringBuilder svg, List<String[]> entries) {
        int x = LEFT;
        for (String[] e : entries) {
            svg.append("<line x1=\"").append(x).append("\" y1=\"36\" x2=\"").append(x + 22).append("\" y2=\"36\" stroke=\"")
                    .append(e[1]).append("\" stroke-width=\"2.5\"");
            if (e[2] != null) {
                svg.append(" stroke-dasharray=\"").append(e[2]).append('"');
            }
            svg.append("/>\n<text x=\"").append(x + 27).append("\" y=\"40\" ").append(FONT).append(" font-size=\"12\">")
                    .append(xml(e[0])).append("</text>\n");
            x += 40 + 7 * e[0].length();
        }
    }

    private static void axes(StringBuilder svg, int top, int bottom, double[] ticks, double yMax, String yLabel) {
        int right = WIDTH - RIGHT;
        for (double t : ticks) {
            double y = bottom - t / yMax * (bottom - top);
            svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(f(y)).append("\" x2=\"").append(right)
                    .append("\" y2=\"").append(f(y)).append("\" stroke=\"#e5e5e5\"/>\n");
            svg.append("<text x=\"").append(LEFT - 6).append("\" y=\"").append(f(y + 4)).append("\" ").append(FONT)
                    .append(" font-size=\"11\" text-anchor=\"end\">").append(Numbers.format(t)).append("</text>\n");
        }
        svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(top).append("\" x2=\"").append(LEFT)
                .append("\" y2=\"").append(bottom).append("\" stroke=\"#333\"/>\n");
        svg.append("<line x1=\"").append(LEFT).append("\" y1=\"").append(bottom).append("\" x2=\"").append(right)
                .append("\" y2=\"").append(bottom).append("\" stroke=\"#333\"/>\n");
        int mid = (top + bottom) / 2;
        svg.append("<text x=\"16\" y=\"").append(mid).append("\" ").append(FONT)
                .append(" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 ").append(mid).append(")\">")
                .append(xml(yLabel)).append("</text>\n");
    }

    private static void polyline(StringBuilder svg, String points, String colour, String dash, String title) {
        if (points.isEmpty()) {
            return;
        }
        svg.append("<polyline fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"1.8\"");
        if (dash != null) {
            svg.append(" stroke-dasharray=\"").append(dash).append('"');
        }
        svg.append(" points=\"").append(points).append("\"><title>").append(xml(title)).append("</title></polyline>\n");
    }

    /** Round tick values from 0 to at least {@code max}: steps of 1, 2 or 5 × 10^k, about five of them. */
    static double[] ticks(double max) {
        double raw = max / 5;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = magnitude;
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * magnitude >= raw) {
                step = m * magnitude;
                break;
            }
        }
        int n = (int) Math.ceil(max / step - 1e-9);
        double[] t = new double[n + 1];
        for (int i = 0; i <= n; i++) {
            t[i] = Math.round(i * step * 1e9) / 1e9;
        }
        return t;
    }

    private static String f(double v) {
        return Numbers.fixed(v, 1);
    }

    static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
