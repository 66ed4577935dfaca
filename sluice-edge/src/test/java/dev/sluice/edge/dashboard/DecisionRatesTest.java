package dev.sluice.edge.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.dashboard.DecisionRates.Column;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionRatesTest {

    private static final String QUOTES = "GET /v1/quotes";

    private final ManualTimeSource time = new ManualTimeSource(Instant.parse("2025-06-01T12:00:00Z"), 0);
    private final DecisionRates rates = new DecisionRates(time, 10);

    private void record(String plan, DecisionOutcome outcome, int times) {
        for (int i = 0; i < times; i++) {
            rates.record(new DecisionRecord(QUOTES, plan, outcome, false));
        }
    }

    @Test
    void aRateIsTheWindowsCountOverItsSecondsLeavingOutTheSecondInProgress() {
        record("free", DecisionOutcome.ALLOWED, 20);
        record("free", DecisionOutcome.RATE_LIMITED, 10);
        DecisionRates.Row now = rates.rows().get(0);
        assertThat(now.perSecond(Column.ADMITTED)).isZero(); // the second is not over
        assertThat(now.total(Column.ADMITTED)).isEqualTo(20);

        time.advance(Duration.ofSeconds(1));
        DecisionRates.Row after = rates.rows().get(0);
        assertThat(after.perSecond(Column.ADMITTED)).isEqualTo(2.0); // 20 over 10 s
        assertThat(after.perSecond(Column.TOO_MANY_REQUESTS)).isEqualTo(1.0);
        assertThat(after.total(Column.TOO_MANY_REQUESTS)).isEqualTo(10);
    }

    @Test
    void countsOlderThanTheWindowDropOutOfTheRateButNotTheTotal() {
        record("free", DecisionOutcome.ALLOWED, 30);
        time.advance(Duration.ofSeconds(5));
        record("free", DecisionOutcome.ALLOWED, 10);
        time.advance(Duration.ofSeconds(1));
        assertThat(rates.rows().get(0).perSecond(Column.ADMITTED)).isEqualTo(4.0); // (30 + 10) / 10

        time.advance(Duration.ofSeconds(5)); // the first second is now 11 s old
        assertThat(rates.rows().get(0).perSecond(Column.ADMITTED)).isEqualTo(1.0); // 10 / 10
        time.advance(Duration.ofSeconds(30));
        assertThat(rates.rows().get(0).perSecond(Column.ADMITTED)).isZero();
        assertThat(rates.rows().get(0).total(Column.ADMITTED)).isEqualTo(40);
    }

    @Test
    void aSlotReusedByALaterSecondStartsFromZero() {
        record("free", DecisionOutcome.SHED, 7);
        time.advance(Duration.ofSeconds(11)); // same ring slot (11 slots), eleven seconds later
        record("free", DecisionOutcome.SHED, 3);
        time.advance(Duration.ofSeconds(1));
        assertThat(rates.rows().get(0).perSecond(Column.SHED)).isEqualTo(0.3);
        assertThat(rates.rows().get(0).total(Column.SHED)).isEqualTo(10);
    }

    @Test
    void seriesArePerPlanAndRouteSortedByPlanThenRoute() {
        rates.record(new DecisionRecord("POST /v1/labels", "pro", DecisionOutcome.ALLOWED, false));
        rates.record(new DecisionRecord(QUOTES, "free", DecisionOutcome.ALLOWED, false));
        rates.record(new DecisionRecord("POST /v1/labels", "free", DecisionOutcome.ALLOWED, false));
        List<String> order = rates.rows().stream().map(r -> r.plan() + " " + r.route()).toList();
        assertThat(order).containsExactly("free GET /v1/quotes", "free POST /v1/labels", "pro POST /v1/labels");
    }

    @Test
    void eachOutcomeFallsInTheColumnOfWhatTheClientGot() {
        assertThat(column(DecisionOutcome.ALLOWED, false)).isEqualTo(Column.ADMITTED);
        assertThat(column(DecisionOutcome.RATE_LIMITED, false)).isEqualTo(Column.TOO_MANY_REQUESTS);
        assertThat(column(DecisionOutcome.QUOTA_EXHAUSTED, false)).isEqualTo(Column.TOO_MANY_REQUESTS);
        assertThat(column(DecisionOutcome.ESCALATED, false)).isEqualTo(Column.TOO_MANY_REQUESTS);
        assertThat(column(DecisionOutcome.UNAVAILABLE, false)).isEqualTo(Column.UNAVAILABLE);
        assertThat(column(DecisionOutcome.SHED, false)).isEqualTo(Column.SHED);
        assertThat(column(DecisionOutcome.DEADLINE_EXCEEDED, false)).isEqualTo(Column.SHED);
        assertThat(column(DecisionOutcome.UNAUTHENTICATED, false)).isEqualTo(Column.OTHER);
        assertThat(column(DecisionOutcome.REPLAYED, false)).isEqualTo(Column.OTHER);
        // SPEC §3.13a: a dry-run denial is forwarded; a store that cannot decide answers 503 even there
        assertThat(column(DecisionOutcome.RATE_LIMITED, true)).isEqualTo(Column.ADMITTED);
        assertThat(column(DecisionOutcome.UNAVAILABLE, true)).isEqualTo(Column.UNAVAILABLE);
    }

    @Test
    void theWindowIsBounded() {
        assertThatThrownBy(() -> new DecisionRates(time, 0)).hasMessageContaining("windowSeconds");
        assertThatThrownBy(() -> new DecisionRates(time, 301)).hasMessageContaining("windowSeconds");
    }

    private static Column column(DecisionOutcome outcome, boolean dryRun) {
        return Column.of(new DecisionRecord(QUOTES, "free", outcome, dryRun));
    }
}
