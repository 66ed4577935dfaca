package dev.sluice.examples.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.examples.demo.fleet.ClientKind;
import org.junit.jupiter.api.Test;

class HeadlineTest {

    @Test
    void theFiguresOfTenSecondsWithATwoSecondBlip() {
        // 100 calls a second; in the blip (seconds 4 and 5) each makes 3 attempts, all 503
        Headline h = Headline.of(HtmlReportTest.tenSeconds(ClientKind.NAIVE, 3, 25));

        assertThat(h.peakOffered()).isEqualTo(310); // 300 503s + 10 quota 429s
        assertThat(h.peakRatio()).isEqualTo(3.1);   // limit 100/s
        assertThat(h.normalOffered()).isEqualTo(101.5); // seconds 0..3 offered 100, 101, 102, 103
        assertThat(h.peakVsNormal()).isCloseTo(310 / 101.5, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(h.retriesInBlip()).isEqualTo(400);
        assertThat(h.callsInBlip()).isEqualTo(200);
        assertThat(h.retryShareInBlip()).isEqualTo(2.0);
        assertThat(h.wire429()).isEqualTo(100);     // 10 quota 429s a second
        assertThat(h.labelsPerSecond()).isEqualTo(40.0); // 425 created, 25 of them twice, over 10 s
        assertThat(h.recoverySeconds()).hasValue(0);     // second 6 is as good as 0..3
        assertThat(h.duplicateLabels()).isEqualTo(25);
    }

    @Test
    void aClientThatFailedMostCallsBeforeTheBlipHasNoNormalToReturnTo() {
        RunReport run = HtmlReportTest.tenSeconds(ClientKind.NAIVE, 3, 0);
        java.util.List<dev.sluice.examples.demo.series.SecondCounts> failing = new java.util.ArrayList<>();
        for (dev.sluice.examples.demo.series.SecondCounts c : run.seconds()) {
            long[] v = c.values();
            v[dev.sluice.examples.demo.series.Series.SUCCEEDED.ordinal()] = 40; // 40 of 100 calls a second
            failing.add(new dev.sluice.examples.demo.series.SecondCounts(c.second(), v));
        }
        RunReport degraded = new RunReport(run.client(), run.startedAt(), run.plannedSeconds(), false, run.blip(), failing,
                run.stopping(), run.calls(), run.upstream(), run.limitPerSecond(), 0, run.notes());

        assertThat(Headline.of(degraded).recoverySeconds()).isEmpty();
    }
}
