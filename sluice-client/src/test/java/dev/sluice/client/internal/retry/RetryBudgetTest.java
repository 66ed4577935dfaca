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
        for (long t = 0; t < 60 * SECOND; t += SECOND / 10) {
            granted += budget.tryAcquireRetry(t) ? 1 : 0;
        }
        assertThat(granted).isEqualTo(10); // two every 5 s for 25 s, then the minute's floor
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

    /**
     * SPEC §8: retries during a 5 s blip at most 10 % of the calls. A client that called 10 times a
     * second for a minute has a minute's budget of 60 retries; without the spread window it could
     * send all 60 into the blip's 50 calls (120 %).
     */
    @Test
    void aMinutesBudgetIsNotSpentWithinSecondsOfABlip() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(RetryBudgetConfig.defaults());
        InMemoryRetryBudget minuteOnly = new InMemoryRetryBudget(RetryBudgetConfig.defaults().withSpreadWindow(Duration.ZERO));
        long t = 0;
        for (int i = 0; i < 600; i++, t += SECOND / 10) { // 60 s of calls at 10/s, no retry
            budget.recordRequest(t);
            minuteOnly.recordRequest(t);
        }
        int granted = 0;
        int grantedMinuteOnly = 0;
        for (int i = 0; i < 50; i++, t += SECOND / 10) { // a 5 s blip: every call fails and asks for 2 retries
            budget.recordRequest(t);
            minuteOnly.recordRequest(t);
            for (int r = 0; r < 2; r++) {
                granted += budget.tryAcquireRetry(t) ? 1 : 0;
                grantedMinuteOnly += minuteOnly.tryAcquireRetry(t) ? 1 : 0;
            }
        }
        assertThat(grantedMinuteOnly).isEqualTo(60); // 10 % of the 600 calls in the sliding minute, all within 5 s
        assertThat(granted).isEqualTo(5); // 10 % of the blip's 50 calls (the floor of 2 is below it)
    }

    @Test
    void theSpreadWindowHoldsTheRetryItselfWithinTheRatio() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 0,
                Duration.ofSeconds(5)));
        for (int i = 0; i < 19; i++) {
            budget.recordRequest(0);
        }
        assertThat(budget.tryAcquireRetry(0)).isTrue(); // 1 retry of 19 calls: 5.3 %
        assertThat(budget.tryAcquireRetry(0)).isFalse(); // a 2nd would be 10.5 %
        budget.recordRequest(0);
        assertThat(budget.tryAcquireRetry(0)).isTrue(); // 2 of 20: 10 %
        // 5 s later the window is empty again: no calls, no retry
        assertThat(budget.tryAcquireRetry(5 * SECOND)).isFalse();
    }

    @Test
    void aQuietClientStillGetsItsCallsTwoRetriesFromTheFloorEveryFiveSeconds() {
        InMemoryRetryBudget budget = new InMemoryRetryBudget(RetryBudgetConfig.defaults());
        budget.recordRequest(0);
        assertThat(budget.tryAcquireRetry(0)).isTrue();
        assertThat(budget.tryAcquireRetry(SECOND)).isTrue(); // one call's 3 attempts
        assertThat(budget.tryAcquireRetry(2 * SECOND)).isFalse(); // the floor, 10 a minute, spread: 2 per 5 s
        assertThat(budget.tryAcquireRetry(4_900_000_000L)).isFalse();
        assertThat(budget.tryAcquireRetry(5 * SECOND)).isTrue();
        assertThat(RetryBudgetConfig.defaults().spreadFloor()).isEqualTo(2.0);
        assertThat(RetryBudgetConfig.strict().spreadFloor()).isZero();
    }

    @Test
    void aSpreadWindowLongerThanTheWindowIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new RetryBudgetConfig(0.1, Duration.ofSeconds(2), 0,
                Duration.ofSeconds(5))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spreadWindow");
    }
}
