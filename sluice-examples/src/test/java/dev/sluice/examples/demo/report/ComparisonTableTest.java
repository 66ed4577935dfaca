package dev.sluice.examples.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.fleet.CallTotals;
import dev.sluice.examples.demo.fleet.ClientKind;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

    /**
     * An SDK whose budget left 60 calls unretried (50 of them made in the blip's two seconds) and so
     * succeeds less often than the others: the table says it is behind, and why, with the figures.
     */
    @Test
    void behindOnUsefulWorkTheTableSaysWhyWithTheBudgetsRefusals() {
        ComparisonReport three = HtmlReportTest.threeClients();
        RunReport sdk = three.runs().get(2);
        List<SecondCounts> seconds = new ArrayList<>();
        for (SecondCounts c : sdk.seconds()) {
            long[] v = c.values().clone();
            v[Series.BUDGET_EXHAUSTED.ordinal()] = sdk.inBlip(c.second()) ? 25 : c.second() == 6 ? 10 : 0;
            seconds.add(new SecondCounts(c.second(), v));
        }
        RunReport behind = new RunReport(ClientKind.SDK, sdk.startedAt(), sdk.plannedSeconds(), false, sdk.blip(),
                seconds, sdk.stopping(), new CallTotals(Map.of(CallResult.Kind.SUCCEEDED, 660L,
                        CallResult.Kind.QUOTA_EXCEEDED, 280L, CallResult.Kind.BUDGET_EXHAUSTED, 60L)),
                sdk.upstream(), sdk.limitPerSecond(), 0, sdk.notes());
        ComparisonReport report = new ComparisonReport(Instant.parse("2026-11-30T18:00:00Z"), List.of(),
                List.of(three.runs().get(0), three.runs().get(1), behind), 0.3, Duration.ofSeconds(3));
        List<String> lines = ComparisonTable.standing(report.runs(), report.headlines());
        assertThat(lines.getFirst()).isEqualTo("the Sluice SDK is behind on 1 headline(s): calls succeeded / calls made");
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("  BEHIND calls succeeded / calls made:"
                + " Sluice SDK 66.0 %; naive 72.0 %, careful 72.0 %"));
        assertThat(lines.getLast()).isEqualTo("  why: the SDK's retry budget (SPEC 4.2: retries at most 10 % of the"
                + " calls) found no room before their deadline for the retry of 60 calls (50 of them made in the"
                + " blip's seconds); the others retry every such call (retries naive 200.0 % of the calls made in"
                + " the blip, peak 3.10x the limit, careful 100.0 % of the calls made in the blip, peak 2.10x the"
                + " limit), which this run's Shiplane absorbed");
    }
}
