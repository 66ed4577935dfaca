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
import java.util.function.Function;

/**
 * Writes the one-page HTML report of a demo: the comparison of the headline figures, then the same
 * three charts for every client side by side, each kind of chart on one scale for all clients and
 * with one sentence saying what to conclude from it, then per client how its calls ended and the
 * per-second table the charts are drawn from, and what every number means. The page is
 * self-contained — inline CSS, inline SVG, no script, no external resource — so it opens offline in
 * any browser. Stateless.
 */
public final class HtmlReport {

    /** The colour of each series, in the charts and the tables. */
    static final Map<Series, String> COLORS = new EnumMap<>(Map.ofEntries(
            Map.entry(Series.OFFERED, "#444444"),
            Map.entry(Series.ADMITTED, "#1f9d55"),
            Map.entry(Series.RATE_LIMITED, "#e8870e"),
            Map.entry(Series.QUOTA_EXHAUSTED, "#9b3fb5"),
            Map.entry(Series.UNAVAILABLE, "#d62f2f"),
            Map.entry(Series.OTHER, "#8a8a8a"),
            Map.entry(Series.RETRIES, "#2f6fd6"),
            Map.entry(Series.LOCAL_DROPS, "#11a3a3"),
            Map.entry(Series.BUDGET_EXHAUSTED, "#8c5a2b"),
            Map.entry(Series.LOCAL_QUOTA, "#d58fe6"),
            Map.entry(Series.CALLS, "#777777"),
            Map.entry(Series.SUCCEEDED, "#0b6e3a")));

    static final List<Series> TRAFFIC = List.of(Series.OFFERED, Series.ADMITTED);
    static final List<Series> REJECTIONS = List.of(Series.RATE_LIMITED, Series.QUOTA_EXHAUSTED, Series.UNAVAILABLE,
            Series.OTHER, Series.RETRIES, Series.LOCAL_DROPS, Series.BUDGET_EXHAUSTED, Series.LOCAL_QUOTA);
    static final List<Series> WORK = List.of(Series.CALLS, Series.SUCCEEDED);

    private static final int CHART_WIDTH = 420;
    private static final int CHART_HEIGHT = 300;

    private HtmlReport() {
    }

    /**
     * Writes the report of {@code report} to {@code file} (parent folders are created; an existing
     * file is replaced).
     *
     * @throws IOException if the file cannot be written
     */
    public static void write(ComparisonReport report, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, render(report), StandardCharsets.UTF_8);
    }

    /** The report as an HTML document. */
    public static String render(ComparisonReport report) {
        List<RunReport> runs = report.runs();
        List<Headline> headlines = report.headlines();
        StringBuilder h = new StringBuilder(128 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .append("<title>Sluice demo report</title>\n<style>\n").append(CSS).append("</style>\n</head>\n<body>\n");
        h.append("<h1>Sluice demo: three clients, one fleet, one blip</h1>\n");
        h.append("<p class=\"lead\">Started ").append(Html.escape(report.startedAt().toString())).append(". The same ")
                .append("fleet (same arrivals, same calls, same keys) ran against a fresh Shiplane behind a fresh edge, once ")
                .append("per client");
        if (!runs.isEmpty()) {
            RunReport first = runs.get(0);
            h.append(", ").append(first.seconds().size()).append(" s each");
            first.blip().ifPresent(b -> h.append(String.format(Locale.ROOT, "; Shiplane blipped from %s s to %s s:"
                    + " %.0f %% of its answers were 503, %.0f %% stalled %d s", fmt(b.fromSecond()), fmt(b.toSecond()),
                    100 * (1 - report.blipSlowShare()), 100 * report.blipSlowShare(), report.blipSlowLatency().toSeconds())
                    + "; after it, Shiplane stayed overloaded until the requests that got past the edge's limits fell"
                    + " to its recovery capacity (the numbers are under What ran): a retry storm lengthens the outage,"
                    + " a client that backs off shortens it"));
        }
        h.append(".</p>\n");
        if (runs.stream().anyMatch(RunReport::interrupted)) {
            h.append("<p class=\"warn\">Stopped early: the last run is cut short.</p>\n");
        }

        comparison(h, runs, headlines);

        SvgChart.Band band = runs.isEmpty() ? null
                : runs.get(0).blip().map(b -> new SvgChart.Band(b.fromSecond(), b.toSecond(), "blip")).orElse(null);
        int seconds = runs.stream().mapToInt(r -> r.seconds().size()).max().orElse(1);
        double limit = runs.isEmpty() ? 0 : runs.get(0).limitPerSecond();
        SvgChart.Rule rule = limit > 0 ? new SvgChart.Rule(limit, String.format(Locale.ROOT, "limit %,.0f/s", limit)) : null;

        trio(h, "traffic", "Attempts offered and admitted per second", runs, headlines, TRAFFIC, band, rule, seconds,
                HtmlReport::concludeTraffic);
        trio(h, "rejections", "429s, 503s, retries and local refusals per second", runs, headlines, REJECTIONS, band,
                null, seconds, HtmlReport::concludeRejections);
        trio(h, "work", "Calls made and calls that succeeded, by the second they were made", runs, headlines, WORK, band,
                null, seconds, HtmlReport::concludeWork);

        h.append("<h2>What ran</h2>\n<ul id=\"setup\">\n");
        report.setup().forEach(line -> h.append("<li>").append(Html.escape(line.strip())).append("</li>\n"));
        for (RunReport r : runs) {
            r.notes().forEach(line -> h.append("<li>").append(Html.escape(r.client().label())).append(": ")
                    .append(Html.escape(line.strip())).append("</li>\n"));
        }
        h.append("</ul>\n");

        h.append("<h2>How the calls ended</h2>\n<table id=\"calls\">\n<thead><tr><th>outcome</th>");
        runs.forEach(r -> h.append("<th>").append(Html.escape(r.client().label())).append("</th>"));
        h.append("</tr></thead>\n<tbody>\n");
        for (CallResult.Kind k : CallResult.Kind.values()) {
            if (k != CallResult.Kind.SUCCEEDED && runs.stream().allMatch(r -> r.calls().get(k) == 0)) {
                continue;
            }
            h.append("<tr data-kind=\"").append(k.name().toLowerCase(Locale.ROOT)).append("\"><td>")
                    .append(Html.escape(k.describe())).append("</td>");
            for (RunReport r : runs) {
                long n = r.calls().get(k);
                h.append("<td data-client=\"").append(r.client().id()).append("\">").append(num(n)).append(" (")
                        .append(pct(n, r.calls().calls())).append(")</td>");
            }
            h.append("</tr>\n");
        }
        h.append("<tr class=\"total\"><td>calls made</td>");
        runs.forEach(r -> h.append("<td>").append(num(r.calls().calls())).append("</td>"));
        h.append("</tr>\n</tbody>\n</table>\n");

        for (RunReport r : runs) {
            perSecond(h, r);
        }

        h.append("<h2>What the numbers mean</h2>\n<dl id=\"definitions\">\n");
        definition(h, "the limit", "the sum, over the fleet's keys, of each key's sustained burst rate (q/w of its"
                + " plan's burst policy, SPEC 1): the most the edge admits per second in the long run.");
        definition(h, "peak offered", "the most HTTP attempts (first attempts and retries) the fleet sent in one second,"
                + " and that as a multiple of the limit; \"in the blip\" the same over the seconds overlapping the blip.");
        definition(h, "retries in the blip", "attempts that repeated a call, sent in the seconds overlapping the blip,"
                + " divided by the calls made in those seconds (SPEC 8: at most 10 % of normal traffic).");
        definition(h, "wire 429s", "429 answers the fleet received: rate_limited and quota_exhausted.");
        definition(h, "useful labels/s", "labels Shiplane created for an order that had none, per second of the run.");
        definition(h, "calls succeeded / calls made", "every call the fleet's users made counts once, however it ended:"
                + " succeeded, failed after its attempts, refused locally by the SDK (throttle, pacer), or failed at once"
                + " because the quota is known spent.");
        definition(h, "back to normal", "seconds from the blip's end to the first second from which, three seconds in a"
                + " row, the calls made in that second succeed at least " + Headline.RECOVERED_PERCENT + " % as often as"
                + " those made in the " + Headline.NORMAL_WINDOW_SECONDS + " s before the blip (\"not in the run\" when"
                + " that never happens, or when fewer than " + Headline.MIN_NORMAL_PERCENT + " % of the calls before the"
                + " blip succeeded: there was no normal to return to).");
        definition(h, "labels bought twice", "labels Shiplane created for an order (the request body's reference) that"
                + " already had one: a write retried under a new Idempotency-Key after a timeout whose first attempt had"
                + " bought it. The edge replays a retry under the same key instead (SPEC 3.11).");
        definition(h, "escalated", "requests the edge answered itself because one key and client address kept"
                + " retrying inside its own Retry-After (SPEC 3.12); every client has its own loopback address, so this"
                + " is a client's own loop, and the edge working.");
        for (Series s : Series.values()) {
            definition(h, s.column(), s.meaning());
        }
        h.append("</dl>\n<p class=\"note\">Each attempt is counted in the second it was sent, so per second "
                + "offered = admitted + 429 rate + 429 quota + 503 + other; calls and how they ended are counted in the"
                + " second the call was made. Rows shaded red overlap the blip. The row \"stop\" counts what reached the"
                + " wire after the run, while the fleet stopped; the totals include it. 503s after the blip are Shiplane"
                + " still overloaded (until the load past the edge's limits falls to its recovery capacity, see What ran),"
                + " the edge's own shedding (SPEC 3.9) or the calls of the blip's last second; the fleet's first calls are"
                + " spread over a ramp so that the start does not shed.</p>\n");
        h.append("</body>\n</html>\n");
        return h.toString();
    }

    private static void comparison(StringBuilder h, List<RunReport> runs, List<Headline> headlines) {
        h.append("<h2>Headline figures</h2>\n<table id=\"comparison\">\n<thead><tr><th></th>");
        runs.forEach(r -> h.append("<th data-client=\"").append(r.client().id()).append("\">")
                .append(Html.escape(r.client().label())).append("</th>"));
        h.append("</tr></thead>\n<tbody>\n");
        List<ComparisonTable.Figure> figures = ComparisonTable.figures();
        for (int f = 0; f < figures.size(); f++) {
            ComparisonTable.Figure figure = figures.get(f);
            h.append("<tr data-figure=\"").append(f).append("\"><th>").append(Html.escape(figure.name().strip()))
                    .append("</th>");
            for (int i = 0; i < runs.size(); i++) {
                h.append("<td data-client=\"").append(runs.get(i).client().id()).append("\">")
                        .append(Html.escape(figure.shown().apply(headlines.get(i)))).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("<tr><th>edge: requests escalated</th>");
        runs.forEach(r -> h.append("<td data-client=\"").append(r.client().id()).append("\">").append(num(r.escalated()))
                .append("</td>"));
        h.append("</tr>\n</tbody>\n</table>\n");
        List<String> standing = ComparisonTable.standing(runs, headlines);
        if (!standing.isEmpty()) {
            h.append("<p id=\"standing\">").append(Html.escape(standing.get(0))).append("</p>\n<ul class=\"standing\">\n");
            standing.subList(1, standing.size()).forEach(l -> h.append("<li>").append(Html.escape(l.strip())).append("</li>\n"));
            h.append("</ul>\n");
        }
    }

    /** One kind of chart, once per client, side by side, on one scale, each with its conclusion. */
    private static void trio(StringBuilder h, String id, String title, List<RunReport> runs, List<Headline> headlines,
            List<Series> series, SvgChart.Band band, SvgChart.Rule rule, int seconds,
            java.util.function.BiFunction<RunReport, Headline, String> conclusion) {
        long scale = 0;
        for (RunReport r : runs) {
            scale = Math.max(scale, SvgChart.maxOf(lines(r, series)));
        }
        h.append("<h2>").append(Html.escape(title)).append("</h2>\n<div class=\"trio\" id=\"trio-").append(id).append("\">\n");
        for (int i = 0; i < runs.size(); i++) {
            RunReport r = runs.get(i);
            h.append("<figure data-client=\"").append(r.client().id()).append("\"><figcaption>")
                    .append(Html.escape(r.client().label())).append("</figcaption>\n")
                    .append(SvgChart.render("chart-" + id + "-" + r.client().id(), title + ": " + r.client().label(),
                            CHART_WIDTH, CHART_HEIGHT, seconds, lines(r, series), band, rule, scale))
                    .append("\n<p class=\"conclude\">").append(Html.escape(conclusion.apply(r, headlines.get(i))))
                    .append("</p></figure>\n");
        }
        h.append("</div>\n");
    }

    static String concludeTraffic(RunReport r, Headline x) {
        if (x.limitPerSecond() <= 0) {
            return String.format(Locale.ROOT, "Peaks at %,d attempts/s.", x.peakOffered());
        }
        String verdict = x.peakRatio() > 1.1
                ? "its retries pile load on top of the traffic just when the limit and Shiplane need less"
                : "it stays within 1.1x the limit, so a blip adds little load";
        return String.format(Locale.ROOT, "Peaks at %,d attempts/s, %.2fx the limit and %.2fx its normal traffic"
                + " (%.2fx the limit in the blip): %s.", x.peakOffered(), x.peakRatio(), x.peakVsNormal(),
                x.peakInBlipRatio(), verdict);
    }

    static String concludeRejections(RunReport r, Headline x) {
        String verdict = x.retryShareInBlip() > 0.10
                ? "more than the 10 % of normal traffic SPEC 8 allows"
                : "within the 10 % of normal traffic SPEC 8 allows";
        return String.format(Locale.ROOT, "%,d wire 429s; retries in the blip were %s of the calls made then, %s.",
                x.wire429(), ComparisonTable.percent(x.retryShareInBlip()), verdict);
    }

    static String concludeWork(RunReport r, Headline x) {
        String back = x.recoverySeconds().isPresent()
                ? "back to normal " + x.recoverySeconds().getAsInt() + " s after the blip"
                : "not back to normal within the run";
        return String.format(Locale.ROOT, "%s of its calls succeeded, %.1f useful labels/s, %,d bought twice; %s.",
                ComparisonTable.percent(x.successShare()), x.labelsPerSecond(), x.duplicateLabels(), back);
    }

    private static void perSecond(StringBuilder h, RunReport run) {
        List<Series> shown = List.of(Series.values());
        Map<Series, Long> totals = run.totals();
        String id = run.client().id();
        h.append("<details><summary>Per second: ").append(Html.escape(run.client().label()))
                .append("</summary>\n<table class=\"per-second\" id=\"per-second-").append(id).append("\">\n<thead><tr><th>s</th>");
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
            cells(h, c, shown, s -> "data-series");
            h.append("</tr>\n");
        }
        run.stopping().ifPresent(c -> {
            h.append("<tr data-second=\"stop\" class=\"stopping\"><td>stop</td>");
            cells(h, c, shown, s -> "data-series");
            h.append("</tr>\n");
        });
        h.append("<tr class=\"total\"><td>total</td>");
        for (Series s : shown) {
            h.append("<td data-total=\"").append(s.id()).append("\">").append(totals.get(s)).append("</td>");
        }
        h.append("</tr>\n</tbody>\n</table>\n</details>\n");
    }

    private static void cells(StringBuilder h, SecondCounts c, List<Series> shown, Function<Series, String> attr) {
        for (Series s : shown) {
            h.append("<td ").append(attr.apply(s)).append("=\"").append(s.id()).append("\">").append(c.get(s)).append("</td>");
        }
    }

    private static List<SvgChart.Line> lines(RunReport run, List<Series> series) {
        List<SvgChart.Line> lines = new ArrayList<>();
        for (Series s : series) {
            long[] v = run.seconds().stream().mapToLong(c -> c.get(s)).toArray();
            lines.add(new SvgChart.Line(s.column(), COLORS.get(s), v));
        }
        return lines;
    }

    private static void definition(StringBuilder h, String term, String meaning) {
        h.append("<dt>").append(Html.escape(term)).append("</dt><dd>").append(Html.escape(meaning)).append("</dd>\n");
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
            body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1320px;
                   color: #222; padding: 0 1rem; }
            h1 { font-size: 1.6rem; margin-bottom: .2rem; }
            h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
            .lead { color: #555; }
            .warn { color: #a33; font-weight: 600; }
            .trio { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: .8rem; }
            figure { margin: 0; }
            figcaption { font-weight: 600; margin-bottom: .2rem; }
            .conclude { font-size: .9rem; color: #333; margin: .3rem 0 0 0; }
            svg { max-width: 100%; height: auto; }
            table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
            th, td { padding: .15rem .6rem; text-align: right; border-bottom: 1px solid #eee; }
            #comparison th:first-child, #calls td:first-child { text-align: left; }
            #comparison td { min-width: 9rem; }
            tr.blip td { background: #fbeaea; }
            tr.total td { font-weight: 600; border-top: 2px solid #999; }
            tr.stopping td { color: #777; font-style: italic; }
            details { margin-top: .8rem; }
            dt { font-weight: 600; margin-top: .4rem; }
            dd { margin-left: 1rem; color: #444; }
            .note { color: #666; font-size: .9rem; }
            """;
}
