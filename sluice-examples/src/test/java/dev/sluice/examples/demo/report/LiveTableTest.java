package dev.sluice.examples.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class LiveTableTest {

    private static SecondCounts second(int s, long offered, long admitted, long rate, long quota, long unavailable) {
        long[] v = new long[Series.values().length];
        v[Series.OFFERED.ordinal()] = offered;
        v[Series.ADMITTED.ordinal()] = admitted;
        v[Series.RATE_LIMITED.ordinal()] = rate;
        v[Series.QUOTA_EXHAUSTED.ordinal()] = quota;
        v[Series.UNAVAILABLE.ordinal()] = unavailable;
        return new SecondCounts(s, v);
    }

    @Test
    void offATerminalTheOutputIsPlainLinesWithoutCarriageReturnsOrEscapes() {
        StringWriter text = new StringWriter();
        LiveTable table = new LiveTable(new PrintWriter(text), false, false);

        table.header();
        table.progress("[####....] 3/60 s");
        table.row(second(3, 812, 655, 157, 0, 0), "");
        table.progress("[#####...] 4/60 s");
        table.row(second(4, 790, 120, 160, 0, 510), "<- blip");

        assertThat(text.toString()).doesNotContain("\r", "\033", "3/60 s");
        assertThat(text.toString().lines().toList()).containsExactly(
                "   s   offered  admitted  429 rate 429 quota       503     other   retries     calls  ok-calls",
                "   3       812       655       157         0         0         0         0         0         0",
                "   4       790       120       160         0       510         0         0         0         0  <- blip");
        assertThat(table.rowsPrinted()).isEqualTo(2);
    }

    @Test
    void onATerminalTheProgressLineIsRedrawnInPlaceAndClearedBeforeARow() {
        StringWriter text = new StringWriter();
        LiveTable table = new LiveTable(new PrintWriter(text), true, true);

        table.header();
        table.progress("3/60 s");
        table.row(second(3, 1, 1, 0, 0, 0), "");

        String[] lines = text.toString().split("\n");
        assertThat(lines[0]).endsWith("   retries     drops  budget-x sdk-quota     calls  ok-calls");
        assertThat(lines[1]).startsWith("\r\033[2K3/60 s\r\033[2K   3");
    }

    @Test
    void theProgressBarFillsInProportion() {
        assertThat(LiveTable.bar(15, 60, 8)).isEqualTo("[##......]");
        assertThat(LiveTable.bar(60, 60, 4)).isEqualTo("[####]");
        assertThat(LiveTable.bar(0, 60, 4)).isEqualTo("[....]");
    }
}
