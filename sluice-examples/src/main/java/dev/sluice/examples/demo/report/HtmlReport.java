package dev.sluice.examples.demo.report;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes the one-page HTML report of a demo run: headline numbers, two charts (traffic; rejections
 * and retries) as inline SVG, how the calls ended, and the per-second table the charts are drawn
 * from. The page is self-contained — inline CSS, no script, no external resource — so it opens
 * offline in any browser. Stateless.
 */
public final class HtmlReport {

    /** The colour of each series, in both charts and the table. */
    static final Map<Series, String> COLORS = new EnumMap<>(Map.of(
            Series.OFFERED, "#444444",
            Series.ADMITTED, "#1f9d55",
            Series.RATE_LIMITED, "#e8870e",
            Series.QUOTA_EXHAUSTED, "#9b3fb5",
            Series.UNAVAILABLE, "#d62f2f",
            Series.OTHER, "#8a8a8a",
            Series.RETRIES, "#2f6fd6",
            Series.LOCAL_DROPS, "#11a3a3",
            Series.BUDGET_EXHAUSTED, "#8c5a2b",
            Series.LOCAL_QUOTA, "#d58fe6"));

    private HtmlReport() {
    }

    /**
     * Writes the report of {@code run} to {@code file} (parent folders are created; an existing
     * file is replaced).
     *
     * @throws IOException if the file cannot be written
     */
    public static void write(RunReport run, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(run), StandardCharsets.UTF_8);
    }

    /** The report as an HTML document. */
    public static String render(RunReport run) {
        List<Series> shown = shownSeries(run.sdk());
        Map<Series, Long> totals = run.totals();
        int seconds = run.seconds().size();
        long offered = totals.get(Series.OFFERED);
        StringBuilder h = new StringBuilder(64 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>Sluice demo report</title>\n<style>\n").append(CSS).append("</style>\n</head>\n<body>\n");
        h.append("<h1>Sluice demo: Shiplane behind the edge</h1>\n");
        h.append("<p class=\"lead\">Started ").append(Html.escape(run.startedAt().toString())).append(", ran ")
                .append(seconds).append(" s");
        if (run.interrupted()) {
            h.append(" of the planned ").append(run.plannedSeconds()).append(" s (stopped early)");
        }
        run.blip().ifPresent(b -> h.append("; Shiplane blipped (answered 503) from ").append(fmt(b.fromSecond()))
                .append(" s to ").append(fmt(b.toSecond())).append(" s"));
        h.append(".</p>\n");

        h.append("<section id=\"headline\" class=\"cards\">\n");
        card(h, "offered", "attempts offered", offered, "peak " + num(run.peak(Series.OFFERED)) + "/s");
        card(h, "admitted", "admitted (2xx)", totals.get(Series.ADMITTED), pct(totals.get(Series.ADMITTED), offered));
        card(h, "rate_limited", "429 rate_limited", totals.get(Series.RATE_LIMITED),
                pct(totals.get(Series.RATE_LIMITED), offered));
        card(h, "quota_exhausted", "429 quota_exhausted", totals.get(Series.QUOTA_EXHAUSTED),
                pct(totals.get(Series.QUOTA_EXHAUSTED), offered));
        card(h, "unavailable", "503", totals.get(Series.UNAVAILABLE), blipShare(run));
        card(h, "retries", "retries", totals.get(Series.RETRIES), pct(totals.get(Series.RETRIES), offered) + " of offered");
        if (run.sdk()) {
            card(h, "local_drops", "local drops (SDK)", totals.get(Series.LOCAL_DROPS), "never reached the network");
            card(h, "budget_exhausted", "budget exhaustions (SDK)", totals.get(Series.BUDGET_EXHAUSTED), "retries refused");
            card(h, "local_quota", "quota known spent (SDK)", totals.get(Series.LOCAL_QUOTA),
                    "calls failed at once, no request sent");
        }
        long calls = run.calls().calls();
        card(h, "calls_succeeded", "calls that succeeded", run.calls().get(CallResult.Kind.SUCCEEDED),
                "of " + num(calls) + " calls, " + pct(run.calls().get(CallResult.Kind.SUCCEEDED), calls));
        card(h, "labels_created", "labels Shiplane created", run.upstream().labelsCreated(),
                num(run.upstream().duplicateLabels()) + " bought twice under one Idempotency-Key");
        h.append("</section>\n");

        SvgChart.Band band = run.blip().map(b -> new SvgChart.Band(b.fromSecond(), b.toSecond(), "blip")).orElse(null);
        h.append("<h2>Traffic</h2>\n<figure>\n").append(SvgChart.render("chart-traffic",
                "Attempts offered and admitted per second", 960, 320, seconds,
                lines(run, List.of(Series.OFFERED, Series.ADMITTED)), band)).append("\n</figure>\n");
        List<Series> rejections = new ArrayList<>(List.of(Series.RATE_LIMITED, Series.QUOTA_EXHAUSTED,
                Series.UNAVAILABLE, Series.RETRIES));
        if (totals.get(Series.OTHER) > 0) {
            rejections.add(Series.OTHER);
        }
        if (run.sdk()) {
            rejections.add(Series.LOCAL_DROPS);
            rejections.add(Series.BUDGET_EXHAUSTED);
            rejections.add(Series.LOCAL_QUOTA);
        }
        h.append("<h2>Rejections and retries</h2>\n<figure>\n").append(SvgChart.render("chart-rejections",
                "Rejections, 503s and retries per second", 960, 320, seconds, lines(run, rejections), band))
                .append("\n</figure>\n");

        h.append("<h2>What ran</h2>\n<ul id=\"setup\">\n");
        run.setup().forEach(line -> h.append("<li>").append(Html.escape(line)).append("</li>\n"));
        h.append("</ul>\n");

        h.append("<h2>How the calls ended</h2>\n<table id=\"calls\">\n<thead><tr><th>outcome</th><th>calls</th><th>share</th></tr></thead>\n<tbody>\n");
        for (CallResult.Kind k : CallResult.Kind.values()) {
            long n = run.calls().get(k);
            if (n > 0 || k == CallResult.Kind.SUCCEEDED) {
                h.append("<tr data-kind=\"").append(k.name().toLowerCase(Locale.ROOT)).append("\"><td>")
                        .append(k.name().toLowerCase(Locale.ROOT)).append("</td><td>").append(num(n))
                        .append("</td><td>").append(pct(n, calls)).append("</td></tr>\n");
            }
        }
        h.append("</tbody>\n</table>\n");

        h.append("<h2>Per second</h2>\n<table id=\"per-second\">\n<thead><tr><th>s</th>");
        for (Series s : shown) {
            h.append("<th style=\"color:").append(COLORS.get(s)).append("\">").append(Html.escape(s.column())).append("</th>");
        }
        h.append("</tr></thead>\n<tbody>\n");
        for (SecondCounts c : run.seconds()) {
            h.append("<tr data-second=\"").append(c.second()).append('"');
            if (run.inBlip(c.second())) {
                h.append(" class=\"blip\"");
            }
            h.append("><td>").append(c.second()).append("</td>");
            for (Series s : shown) {
                h.append("<td data-series=\"").append(s.id()).append("\">").append(c.get(s)).append("</td>");
            }
            h.append("</tr>\n");
        }
        run.stopping().ifPresent(c -> {
            h.append("<tr data-second=\"stop\" class=\"stopping\"><td>stop</td>");
            for (Series s : shown) {
                h.append("<td data-series=\"").append(s.id()).append("\">").append(c.get(s)).append("</td>");
            }
            h.append("</tr>\n");
        });
        h.append("<tr class=\"total\"><td>total</td>");
        for (Series s : shown) {
            h.append("<td data-total=\"").append(s.id()).append("\">").append(totals.get(s)).append("</td>");
        }
        h.append("</tr>\n</tbody>\n</table>\n");

        h.append("<h2>What the numbers mean</h2>\n<dl>\n");
        for (Series s : shown) {
            h.append("<dt>").append(Html.escape(s.column())).append("</dt><dd>").append(Html.escape(s.meaning()))
                    .append("</dd>\n");
        }
        h.append("</dl>\n<p class=\"note\">Each attempt is counted in the second it was sent, so per second "
                + "offered = admitted + 429 rate + 429 quota + 503 + other. Rows shaded red overlap the blip. "
                + "The row \"stop\" counts what reached the wire after the run, while the fleet stopped "
                + "(calls in progress finishing their retries); the totals include it.</p>\n");
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    private static List<Series> shownSeries(boolean sdk) {
        List<Series> shown = new ArrayList<>();
        for (Series s : Series.values()) {
            if (sdk || !s.sdkOnly()) {
                shown.add(s);
            }
        }
        return shown;
    }

    private static List<SvgChart.Line> lines(RunReport run, List<Series> series) {
        List<SvgChart.Line> lines = new ArrayList<>();
        for (Series s : series) {
            long[] v = run.seconds().stream().mapToLong(c -> c.get(s)).toArray();
            lines.add(new SvgChart.Line(s.column(), COLORS.get(s), v));
        }
        return lines;
    }

    private static String blipShare(RunReport run) {
        long inBlip = 0;
        for (SecondCounts c : run.seconds()) {
            if (run.inBlip(c.second())) {
                inBlip += c.get(Series.UNAVAILABLE);
            }
        }
        return run.blip().isEmpty() ? "no blip this run" : num(inBlip) + " of them in blip seconds";
    }

    private static void card(StringBuilder h, String id, String label, long value, String sub) {
        h.append("<div class=\"card\" data-headline=\"").append(id).append("\"><div class=\"value\">").append(num(value))
                .append("</div><div class=\"label\">").append(Html.escape(label)).append("</div><div class=\"sub\">")
                .append(Html.escape(sub)).append("</div></div>\n");
    }

    static String num(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String pct(long part, long whole) {
        return whole == 0 ? "0 %" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }

    private static String fmt(double seconds) {
        return seconds == Math.rint(seconds) ? Long.toString((long) seconds) : String.format(Locale.ROOT, "%.1f", seconds);
    }

    private static final String CSS = """
            body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1000px;
                   color: #222; padding: 0 1rem; }
            h1 { font-size: 1.6rem; margin-bottom: .2rem; }
            h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
            .lead { color: #555; }
            .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: .8rem; }
            .card { border: 1px solid #ddd; border-radius: 6px; padding: .6rem .8rem; }
            .card .value { font-size: 1.5rem; font-weight: 600; }
            .card .label { color: #333; }
            .card .sub { color: #777; font-size: .85rem; }
            figure { margin: 0; overflow-x: auto; }
            svg { max-width: 100%; height: auto; }
            table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
            th, td { padding: .15rem .6rem; text-align: right; border-bottom: 1px solid #eee; }
            tr.blip td { background: #fbeaea; }
            tr.total td { font-weight: 600; border-top: 2px solid #999; }
            tr.stopping td { color: #777; font-style: italic; }
            dt { font-weight: 600; margin-top: .4rem; }
            dd { margin-left: 1rem; color: #444; }
            .note { color: #666; font-size: .9rem; }
            """;
}
