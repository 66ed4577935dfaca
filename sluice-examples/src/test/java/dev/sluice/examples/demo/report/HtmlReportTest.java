package dev.sluice.examples.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.fleet.CallTotals;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.shiplane.ShiplaneStats;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class HtmlReportTest {

    /** Ten seconds; a blip over seconds 4 and 5 turns admitted into 503s and retries. */
    static RunReport tenSeconds(boolean sdk) {
        List<SecondCounts> seconds = new ArrayList<>();
        for (int s = 0; s < 10; s++) {
            boolean blip = s == 4 || s == 5;
            long[] v = new long[Series.values().length];
            v[Series.ADMITTED.ordinal()] = blip ? 0 : 600 + s;
            v[Series.RATE_LIMITED.ordinal()] = 100;
            v[Series.QUOTA_EXHAUSTED.ordinal()] = s >= 3 ? 40 : 0;
            v[Series.UNAVAILABLE.ordinal()] = blip ? 650 : 0;
            v[Series.OTHER.ordinal()] = s == 9 ? 1 : 0;
            v[Series.RETRIES.ordinal()] = blip ? 60 : 5;
            v[Series.LOCAL_DROPS.ordinal()] = sdk && blip ? 7 : 0;
            long offered = 0;
            for (Series x : Series.values()) {
                offered += x.isOutcome() ? v[x.ordinal()] : 0;
            }
            v[Series.OFFERED.ordinal()] = offered;
            seconds.add(new SecondCounts(s, v));
        }
        return new RunReport(Instant.parse("2026-11-30T18:00:00Z"), 10, false, List.of("edge http://127.0.0.1:1 <x>"),
                sdk, Optional.of(new RunReport.Blip(4, 6)), seconds, Optional.empty(),
                new CallTotals(Map.of(CallResult.Kind.SUCCEEDED, 4_818L, CallResult.Kind.QUOTA_EXCEEDED, 280L)),
                new ShiplaneStats(6_000, 2_500, 0, 1_300, false, Map.of()));
    }

    @Test
    void thePerSecondTableHoldsEverySecondAndItsValues() {
        RunReport run = tenSeconds(false);
        String html = HtmlReport.render(run);

        for (SecondCounts c : run.seconds()) {
            for (Series s : List.of(Series.OFFERED, Series.ADMITTED, Series.UNAVAILABLE, Series.RETRIES)) {
                assertThat(cell(html, c.second(), s)).as("second %d %s", c.second(), s).isEqualTo(c.get(s));
            }
        }
        assertThat(html).contains("data-total=\"unavailable\">1300<");
        assertThat(html).contains("<tr data-second=\"4\" class=\"blip\">", "<tr data-second=\"5\" class=\"blip\">")
                .doesNotContain("<tr data-second=\"6\" class=\"blip\">");
    }

    @Test
    void eachChartLineHasOnePointPerSecond() {
        String html = HtmlReport.render(tenSeconds(false));

        Matcher m = Pattern.compile("<polyline class=\"series\" data-series=\"([^\"]+)\"[^>]* points=\"([^\"]*)\"").matcher(html);
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
            assertThat(m.group(2).split(" ")).hasSize(10);
        }
        assertThat(names).containsExactly("offered", "admitted", "429 rate", "429 quota", "503", "retries", "other");
        assertThat(html).contains("<svg id=\"chart-traffic\"", "<svg id=\"chart-rejections\"", "class=\"band\"");
    }

    @Test
    void theSdkColumnsAppearOnlyWhenTheFleetUsedTheSdk() {
        assertThat(HtmlReport.render(tenSeconds(false))).doesNotContain("data-series=\"local_drops\"");
        assertThat(HtmlReport.render(tenSeconds(true))).contains("data-series=\"local_drops\">7<",
                "data-headline=\"budget_exhausted\"");
    }

    @Test
    void theHeadlineGivesTotalsAndShares() {
        String html = HtmlReport.render(tenSeconds(false));

        // 10 s x 100 rate limited + admitted 600 + s outside the blip + 7 x 40 quota + 2 x 650 503 + 1 other
        long offered = tenSeconds(false).totals().get(Series.OFFERED);
        assertThat(offered).isEqualTo(1_000 + (600 * 8 + 0 + 1 + 2 + 3 + 6 + 7 + 8 + 9) + 280 + 1_300 + 1);
        assertThat(html).contains("data-headline=\"offered\"><div class=\"value\">" + String.format("%,d", offered));
        assertThat(html).contains("1,300 of them in blip seconds");
        assertThat(html).contains("of 5,098 calls, 94.5 %");
    }

    @Test
    void thePageIsSelfContained() {
        String html = HtmlReport.render(tenSeconds(true));

        assertThat(html).doesNotContainIgnoringCase("<script").doesNotContain(" src=", " href=", "@import", "url(");
        assertThat(html).contains("edge http://127.0.0.1:1 &lt;x&gt;"); // text is escaped
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

    private static long cell(String html, int second, Series s) {
        Matcher row = Pattern.compile("<tr data-second=\"" + second + "\"[^>]*>(.*?)</tr>").matcher(html);
        assertThat(row.find()).isTrue();
        Matcher cell = Pattern.compile("data-series=\"" + s.id() + "\">(\\d+)<").matcher(row.group(1));
        assertThat(cell.find()).isTrue();
        return Long.parseLong(cell.group(1));
    }
}
