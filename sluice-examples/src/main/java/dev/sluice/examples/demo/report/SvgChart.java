package dev.sluice.examples.demo.report;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A line chart of per-second series as inline SVG, drawn by hand so the report needs no script,
 * no library and no network: axes with round ticks, one polyline per series (a point at the middle
 * of each second), a legend, and an optional shaded band (the blip). Stateless.
 */
final class SvgChart {

    /** One line: its name (legend), colour (CSS), and one value per second. */
    record Line(String name, String color, long[] values) {
        Line {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(color, "color");
            values = values.clone();
        }
    }

    /** A shaded interval of the x axis, in seconds, with a label. */
    record Band(double fromSecond, double toSecond, String label) {
    }

    /** A dashed horizontal line at {@code value} (a limit), with a label. */
    record Rule(double value, String label) {
    }

    private static final int LEFT = 64;
    private static final int RIGHT = 16;
    private static final int TOP = 56;
    private static final int BOTTOM = 40;

    private SvgChart() {
    }

    /**
     * The chart as an {@code <svg>} element.
     *
     * @param id the element id
     * @param title the accessible title
     * @param seconds the x range {@code 0 .. seconds}
     * @param lines the series; each has at most {@code seconds} values
     * @param band a shaded interval, or null
     */
    static String render(String id, String title, int width, int height, int seconds, List<Line> lines, Band band) {
        return render(id, title, width, height, seconds, lines, band, null, maxOf(lines));
    }

    /** The largest value of {@code lines} (0 when empty). */
    static long maxOf(List<Line> lines) {
        long max = 0;
        for (Line l : lines) {
            for (long v : l.values()) {
                max = Math.max(max, v);
            }
        }
        return max;
    }

    /**
     * The chart, its y axis up to the round ceiling of {@code scaleMax} (pass the same value to
     * charts that must share one scale), with an optional {@code rule}.
     */
    static String render(String id, String title, int width, int height, int seconds, List<Line> lines, Band band,
            Rule rule, long scaleMax) {
        int plotW = width - LEFT - RIGHT;
        int plotH = height - TOP - BOTTOM;
        int span = Math.max(1, seconds);
        long yMax = niceCeiling(Math.max(scaleMax, maxOf(lines)));
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\""
                        + " role=\"img\" aria-labelledby=\"%s-title\" font-family=\"sans-serif\" font-size=\"12\">\n",
                id, width, height, width, height, id));
        svg.append("<title id=\"").append(id).append("-title\">").append(Html.escape(title)).append("</title>\n");
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fff\" stroke=\"#ccc\"/>\n",
                LEFT, TOP, plotW, plotH));
        if (band != null) {
            double x0 = LEFT + plotW * clamp(band.fromSecond() / span);
            double x1 = LEFT + plotW * clamp(band.toSecond() / span);
            svg.append(String.format(Locale.ROOT,
                    "<rect class=\"band\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#f6d7d7\"/>\n",
                    x0, TOP, Math.max(1, x1 - x0), plotH));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#a33\">%s</text>\n",
                    x0 + 3, TOP + 14, Html.escape(band.label())));
        }
        // y grid and ticks
        for (int i = 0; i <= 4; i++) {
            long v = yMax * i / 4;
            double y = TOP + plotH - plotH * (double) i / 4;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555\">%,d</text>\n",
                    LEFT, y, LEFT + plotW, y, LEFT - 6, y + 4, v));
        }
        // x ticks
        int step = xStep(span);
        for (int s = 0; s <= span; s += step) {
            double x = LEFT + plotW * (double) s / span;
            svg.append(String.format(Locale.ROOT,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>"
                            + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n",
                    x, TOP + plotH, x, TOP + plotH + 5, x, TOP + plotH + 18, s));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">seconds</text>\n",
                LEFT + plotW / 2, height - 6));
        if (rule != null && rule.value() > 0 && rule.value() <= yMax) {
            double y = TOP + plotH - plotH * rule.value() / yMax;
            svg.append(String.format(Locale.ROOT,
                    "<line class=\"rule\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#333\" stroke-dasharray=\"6 4\"/>"
                            + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%s</text>\n",
                    LEFT, y, LEFT + plotW, y, LEFT + plotW - 4, y - 4, Html.escape(rule.label())));
        }
        // lines
        for (Line l : lines) {
            StringBuilder points = new StringBuilder();
            long[] v = l.values();
            for (int s = 0; s < v.length && s < span; s++) {
                double x = LEFT + plotW * (s + 0.5) / span;
                double y = TOP + plotH - plotH * (double) v[s] / yMax;
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
            }
            svg.append("<polyline class=\"series\" data-series=\"").append(Html.escape(l.name()))
                    .append("\" fill=\"none\" stroke-width=\"2\" stroke=\"").append(Html.escape(l.color()))
                    .append("\" points=\"").append(points.toString().trim()).append("\"><title>")
                    .append(Html.escape(l.name())).append("</title></polyline>\n");
        }
        // legend
        int x = LEFT;
        int row = 0;
        for (Line l : lines) {
            int w = 26 + 7 * l.name().length();
            if (x > LEFT && x + w > width) {
                x = LEFT; // wrap: a narrow chart's legend takes two rows
                row++;
            }
            svg.append(String.format(Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\" fill=\"#222\">%s</text>\n",
                    x, 8 + 14 * row, Html.escape(l.color()), x + 18, 14 + 14 * row, Html.escape(l.name())));
            x += w;
        }
        return svg.append("</svg>").toString();
    }

    /** The smallest of 1, 2, 5 × 10^k that is at least {@code max} (at least 1). */
    static long niceCeiling(long max) {
        long m = 1;
        while (true) {
            for (long f : new long[] {1, 2, 5}) {
                if (f * m >= max) {
                    return f * m;
                }
            }
            if (m > Long.MAX_VALUE / 100) {
                return max;
            }
            m *= 10;
        }
    }

    private static int xStep(int span) {
        for (int step : new int[] {1, 2, 5, 10, 15, 30, 60, 120, 300, 600}) {
            if (span / step <= 12) {
                return step;
            }
        }
        return Math.max(1, span / 10);
    }

    private static double clamp(double f) {
        return Math.max(0, Math.min(1, f));
    }
}
