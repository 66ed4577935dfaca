package dev.sluice.client.internal.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.RetryBudgetConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void retriesStayAtOrBelowTenPercentOfRequestsOverTheMinute() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(RetryBudgetConfig.strict());
        for (int i = 0; i < 1000; i++) {
            budget.recordRequest(i * 50_000_000L); // 1,000 calls over 50 s
        }
        long now = 50 * SECOND;
        int granted = 0;
        for (int i = 0; i < 500; i++) {
            if (budget.tryAcquireRetry(now)) {
                granted++;
            }
        }
        assertThat(granted).isEqualTo(100); // 10 % of 1,000 (SPEC §4.2)
    }

    @Test
    void theBudgetSlidesRequestsOlderThanAMinuteStopCounting() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(RetryBudgetConfig.strict());
        for (int i = 0; i < 100; i++) {
            budget.recordRequest(0);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(budget.tryAcquireRetry(0)).isTrue();
        }
        assertThat(budget.tryAcquireRetry(0)).isFalse();
        // a minute later both the requests and the retries have left the window
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isFalse(); // no requests -> 10 % of 0
        for (int i = 0; i < 20; i++) {
            budget.recordRequest(60 * SECOND);
        }
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isTrue();
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isTrue();
        assertThat(budget.tryAcquireRetry(60 * SECOND)).isFalse();
    }

    @Test
    void theDefaultFloorLetsAQuietClientRetryTenTimesAMinute() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(RetryBudgetConfig.defaults());
        budget.recordRequest(0);
        int granted = 0;
        while (budget.tryAcquireRetry(0)) {
            granted++;
        }
        assertThat(granted).isEqualTo(10);
    }

    @Test
    void aRefusedRetryIsNotCounted() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 0));
        for (int i = 0; i < 10; i++) {
            budget.recordRequest(0);
        }
        assertThat(budget.tryAcquireRetry(0)).isTrue();
        assertThat(budget.tryAcquireRetry(0)).isFalse();
        assertThat(budget.retries(0)).isEqualTo(1);
    }
}
