package dev.sluice.examples.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ComparisonTableTest {

    /**
     * The three clients of {@link HtmlReportTest#threeClients()}: the SDK makes 1 attempt per call in
     * the blip (careful 2, naive 3) and, like careful, buys no label twice (naive 25). Fewer retries
     * is ahead; 0 duplicates against careful's 0 is level, not ahead.
     */
    @Test
    void aTieWithAnotherClientReadsLevelAndOnlyAStrictLeadReadsAhead() {
        ComparisonReport report = HtmlReportTest.threeClients();
        List<String> lines = ComparisonTable.standing(report.runs(), report.headlines());
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("  ahead  retries in the blip / calls made then:"
                + " Sluice SDK 0.0 %; naive 200.0 %, careful 100.0 %"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("  level  labels bought twice: Sluice SDK 0;"
                + " naive 25, careful 0"));
        assertThat(lines.getFirst()).startsWith("the Sluice SDK is ahead of (or level with) every other client");
    }
}
