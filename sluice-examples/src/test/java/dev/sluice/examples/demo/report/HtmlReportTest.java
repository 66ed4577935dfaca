package dev.sluice.examples.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.fleet.CallTotals;
import dev.sluice.examples.demo.fleet.ClientKind;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.shiplane.ShiplaneStats;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class HtmlReportTest {

    /**
     * Ten seconds of one client, a blip over seconds 4 and 5: {@code amplification} attempts per call
     * in the blip, and 100 calls a second throughout, of which 90 succeed outside the blip.
     */
    static RunReport tenSeconds(ClientKind kind, int amplification, long duplicates) {
        List<SecondCounts> seconds = new ArrayList<>();
        for (int s = 0; s < 10; s++) {
            boolean blip = s == 4 || s == 5;
            long[] v = new long[Series.values().length];
            v[Series.CALLS.ordinal()] = 100;
            v[Series.SUCCEEDED.ordinal()] = blip ? 0 : 90;
            v[Series.ADMITTED.ordinal()] = blip ? 0 : 90 + s;
            v[Series.QUOTA_EXHAUSTED.ordinal()] = 10;
            v[Series.UNAVAILABLE.ordinal()] = blip ? 100L * amplification : 0;
            v[Series.RETRIES.ordinal()] = blip ? 100L * (amplification - 1) : 0;
            v[Series.LOCAL_DROPS.ordinal()] = kind == ClientKind.SDK && blip ? 7 : 0;
            long offered = 0;
            for (Series x : Series.values()) {
                offered += x.isOutcome() ? v[x.ordinal()] : 0;
            }
            v[Series.OFFERED.ordinal()] = offered;
            seconds.add(new SecondCounts(s, v));
        }
        return new RunReport(kind, Instant.parse("2026-11-30T18:00:00Z"), 10, false,
                Optional.of(new RunReport.Blip(4, 6)), seconds, Optional.empty(),
                new CallTotals(Map.of(CallResult.Kind.SUCCEEDED, 720L, CallResult.Kind.QUOTA_EXCEEDED, 280L)),
                new ShiplaneStats(6_000, 400 + duplicates, duplicates, 1_300, 12, false, Map.of()), 100, 0,
                List.of("edge: a note <x>"));
    }

    static ComparisonReport threeClients() {
        return new ComparisonReport(Instant.parse("2026-11-30T18:00:00Z"), List.of("edge http://127.0.0.1:1 <x>"),
                List.of(tenSeconds(ClientKind.NAIVE, 3, 25), tenSeconds(ClientKind.CAREFUL, 2, 0),
                        tenSeconds(ClientKind.SDK, 1, 0)), 0.3, Duration.ofSeconds(3));
    }

    @Test
    void eachClientsPerSecondTableHoldsEverySecondAndItsValues() {
        ComparisonReport report = threeClients();
        String html = HtmlReport.render(report);

        for (RunReport run : report.runs()) {
            String table = table(html, "per-second-" + run.client().id());
            for (SecondCounts c : run.seconds()) {
                for (Series s : List.of(Series.OFFERED, Series.ADMITTED, Series.UNAVAILABLE, Series.RETRIES, Series.CALLS)) {
                    assertThat(cell(table, c.second(), s)).as("%s second %d %s", run.client(), c.second(), s)
                            .isEqualTo(c.get(s));
                }
            }
            assertThat(table).contains("<tr data-second=\"4\" class=\"blip\">").doesNotContain(
                    "<tr data-second=\"6\" class=\"blip\">");
        }
        assertThat(table(html, "per-second-naive")).contains("data-total=\"unavailable\">600<");
    }

    @Test
    void eachKindOfChartIsDrawnOncePerClientOnOneScale() {
        String html = HtmlReport.render(threeClients());

        for (String trio : List.of("traffic", "rejections", "work")) {
            List<String> tops = new ArrayList<>();
            for (ClientKind k : ClientKind.values()) {
                Matcher svg = Pattern.compile("<svg id=\"chart-" + trio + "-" + k.id() + "\".*?</svg>", Pattern.DOTALL)
                        .matcher(html);
                assertThat(svg.find()).as("%s chart of %s", trio, k).isTrue();
                Matcher ticks = Pattern.compile("text-anchor=\"end\" fill=\"#555\">([0-9,]+)</text>").matcher(svg.group());
                String top = null;
                while (ticks.find()) {
                    top = ticks.group(1);
                }
                tops.add(top);
                Matcher points = Pattern.compile("points=\"([^\"]*)\"").matcher(svg.group());
                while (points.find()) {
                    assertThat(points.group(1).split(" ")).hasSize(10);
                }
            }
            assertThat(tops).as(trio + ": the same y scale for the three clients").containsOnly(tops.get(0));
        }
        // the naive client's 3 attempts per call in the blip set the traffic scale: 300 + 10 quota -> 500
        assertThat(html).contains("<svg id=\"chart-traffic-sdk\"");
        assertThat(html.split("class=\"conclude\"", -1)).hasSize(10); // one sentence under each of the 9 charts
    }

    @Test
    void theHeadlineTableAndEachChartsSentenceSayWhatTheFiguresAre() {
        String html = HtmlReport.render(threeClients());

        // naive: peak 310 attempts/s in the blip (300 503s + 10 quota 429s) against a limit of 100/s
        assertThat(html).contains("<td data-client=\"naive\">310  3.10x</td>");
        assertThat(html).contains("<td data-client=\"sdk\">110  1.10x</td>");
        // retries in the blip: 200 per second on 100 calls for naive, 0 for the SDK
        assertThat(html).contains("<td data-client=\"naive\">200.0 %</td>", "<td data-client=\"sdk\">0.0 %</td>");
        assertThat(html).contains("Peaks at 310 attempts/s, 3.10x the limit and 3.05x its normal traffic (3.10x the limit in the"
                + " blip): its retries pile load");
        assertThat(html).contains("Peaks at 110 attempts/s, 1.10x the limit and 1.08x its normal traffic (1.10x the limit in the"
                + " blip): it stays within 1.1x");
        // 400 unique labels in 10 s; the naive client's 25 duplicates are not useful work
        assertThat(html).contains("40.0 useful labels/s, 25 bought twice", "40.0 useful labels/s, 0 bought twice");
        assertThat(html).contains("back to normal 0 s after the blip");
    }

    @Test
    void thePageIsSelfContainedAndEscapesText() {
        String html = HtmlReport.render(threeClients());

        assertThat(html).doesNotContainIgnoringCase("<script").doesNotContain(" src=", " href=", "@import", "url(");
        assertThat(html).contains("edge http://127.0.0.1:1 &lt;x&gt;", "edge: a note &lt;x&gt;");
    }

    @Test
    void roundCeilingsAreOneTwoOrFiveTimesAPowerOfTen() {
        assertThat(SvgChart.niceCeiling(0)).isEqualTo(1);
        assertThat(SvgChart.niceCeiling(7)).isEqualTo(10);
        assertThat(SvgChart.niceCeiling(832)).isEqualTo(1_000);
        assertThat(SvgChart.niceCeiling(1_001)).isEqualTo(2_000);
        assertThat(SvgChart.niceCeiling(2_000)).isEqualTo(2_000);
        assertThat(SvgChart.niceCeiling(4_100)).isEqualTo(5_000);
    }

    static String table(String html, String id) {
        Matcher t = Pattern.compile("<table class=\"per-second\" id=\"" + id + "\">.*?</table>", Pattern.DOTALL)
                .matcher(html);
        assertThat(t.find()).as(id).isTrue();
        return t.group();
    }

    static long cell(String table, int second, Series s) {
        Matcher row = Pattern.compile("<tr data-second=\"" + second + "\"[^>]*>(.*?)</tr>").matcher(table);
        assertThat(row.find()).isTrue();
        Matcher cell = Pattern.compile("data-series=\"" + s.id() + "\">(\\d+)<").matcher(row.group(1));
        assertThat(cell.find()).isTrue();
        return Long.parseLong(cell.group(1));
    }
}
