package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.spi.RetryBudgetStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RetryBudgetStore} must do (SPEC §4.2: retries at most 10 % of requests over a
 * sliding minute; SPEC §8: and over the 5 s spread window of {@link RetryBudgetConfig}), run against the client's in-memory budget (the reference) and the Redis-backed one.
 */
abstract class RetryBudgetStoreContract {

    static final long SECOND = 1_000_000_000L;

    abstract RetryBudgetStore budget(RetryBudgetConfig config);

    @Test
    void retriesStayAtOrBelowTenPercentOfRequestsOverTheMinute() {
        RetryBudgetStore budget = budget(RetryBudgetConfig.strict());
        for (int i = 0; i < 1000; i++) {
            budget.recordRequest(i * 50_000_000L); // 1,000 calls over 50 s
        }
        long now = 50 * SECOND;
        int granted = 0;
        for (int i = 0; i < 150; i++) {
            if (budget.tryAcquireRetry(now)) {
                granted++;
            }
        }
        assertThat(granted).isEqualTo(100); // 10 % of 1,000 (SPEC §4.2)
    }

    @Test
    void theBudgetSlidesRequestsOlderThanAMinuteStopCounting() {
        RetryBudgetStore budget = budget(RetryBudgetConfig.strict());
        for (int i = 0; i < 100; i++) {
            budget.recordRequest(0);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(budget.tryAcquireRetry(0)).isTrue();
        }
        assertThat(budget.tryAcquireRetry(0)).isFalse();
        // a minute later both the requests and the retries have left the window
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isFalse(); // no requests: 10 % of 0
        for (int i = 0; i < 20; i++) {
            budget.recordRequest(60 * SECOND);
        }
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isTrue();
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isTrue();
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isFalse();
    }

    @Test
    void halfAMinuteLaterTheOlderHalfStillCounts() {
        RetryBudgetStore budget = budget(RetryBudgetConfig.strict());
        for (int i = 0; i < 50; i++) {
            budget.recordRequest(0);
        }
        for (int i = 0; i < 50; i++) {
            budget.recordRequest(30 * SECOND);
        }
        int granted = 0;
        while (budget.tryAcquireRetry(59 * SECOND)) {
            granted++;
        }
        assertThat(granted).isEqualTo(10); // 10 % of the 100 still in the window
        for (int i = 0; i < 5; i++) {
            budget.recordRequest(61 * SECOND); // the first 50 have left: 55 in the window, 10 retries
        }
        assertThat(budget.tryAcquireRetry(61 * SECOND)).isFalse();
    }

    @Test
    void theDefaultFloorLetsAQuietClientRetryTenTimesAMinute() {
        RetryBudgetStore budget = budget(RetryBudgetConfig.defaults());
        budget.recordRequest(0);
        int granted = 0;
        for (long t = 0; t < 60 * SECOND; t += SECOND / 10) {
            granted += budget.tryAcquireRetry(t) ? 1 : 0;
        }
        assertThat(granted).isEqualTo(10); // two every 5 s (the spread floor) for 25 s, then the minute's floor
    }

    @Test
    void withoutTheSpreadWindowTheFloorIsTakenAtOnce() {
        RetryBudgetStore budget = budget(RetryBudgetConfig.defaults().withSpreadWindow(Duration.ZERO));
        budget.recordRequest(0);
        int granted = 0;
        while (budget.tryAcquireRetry(0) && granted < 100) {
            granted++;
        }
        assertThat(granted).isEqualTo(10);
    }

    /**
     * SPEC §8: retries during a 5 s blip at most 10 % of its calls. 60 s of calls at 10/s earn a
     * minute's budget of 60 retries; the spread window lets 10 % of the blip's 50 calls through.
     */
    @Test
    void aMinutesBudgetIsNotSpentWithinSecondsOfABlip() {
        RetryBudgetStore budget = budget(RetryBudgetConfig.defaults());
        long t = 0;
        for (int i = 0; i < 600; i++, t += SECOND / 10) {
            budget.recordRequest(t);
        }
        int granted = 0;
        for (int i = 0; i < 50; i++, t += SECOND / 10) { // every call fails and asks for 2 retries
            budget.recordRequest(t);
            for (int r = 0; r < 2; r++) {
                granted += budget.tryAcquireRetry(t) ? 1 : 0;
            }
        }
        assertThat(granted).isEqualTo(5);
    }

    @Test
    void aRefusedRetryIsNotCounted() {
        RetryBudgetStore budget = budget(new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 0));
        for (int i = 0; i < 10; i++) {
            budget.recordRequest(0);
        }
        assertThat(budget.tryAcquireRetry(0)).isTrue();
        assertThat(budget.tryAcquireRetry(0)).isFalse();
        for (int i = 0; i < 10; i++) {
            budget.recordRequest(0);
        }
        assertThat(budget.tryAcquireRetry(0)).as("20 requests allow 2; one was taken, the refusal took none")
                .isTrue();
        assertThat(budget.tryAcquireRetry(0)).isFalse();
    }
}
