package dev.sluice.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@link InMemoryLimiterStore#tryAcquire} answers and charges exactly as {@code decide} does: two stores on
 * one fake clock, one asked with {@code decide} and one with {@code tryAcquire}, the same randomised trace.
 */
class TryAcquireTest {

    /** SPEC §2.1's Free plan (20 burst at 2/s, 10,000 a day) and a burst-only plan of 5 at 1/s. */
    private static final Plan FREE = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));
    private static final Plan SMALL = Plan.of("small", BurstPolicy.of("burst", 5, 5));

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void sameAnswersAndSameStateAsDecideOnARandomTrace(long seed) {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T23:59:00Z"); // the trace crosses midnight
        InMemoryLimiterStore decided = new InMemoryLimiterStore(time);
        InMemoryLimiterStore acquired = new InMemoryLimiterStore(time);
        SplittableRandom random = new SplittableRandom(seed);
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 20_000; i++) {
            String key = "k" + random.nextInt(3);
            Plan plan = random.nextInt(4) == 0 ? SMALL : FREE;
            Costs cost = Costs.requests(random.nextInt(10) == 0 ? 25 : 1 + random.nextInt(3));
            boolean viaDecide = decided.decide(key, plan, cost) instanceof Allowed;
            assertThat(acquired.tryAcquire(key, plan, cost)).as("request %d (%s, %s)", i, key, plan.name())
                    .isEqualTo(viaDecide);
            if (viaDecide) {
                admitted++;
            } else {
                refused++;
            }
            time.advance(Duration.ofMillis(random.nextInt(120)));
        }
        for (String key : new String[] {"k0", "k1", "k2"}) {
            assertThat(acquired.usage(key, FREE)).isEqualTo(decided.usage(key, FREE));
        }
        // the trace exercises both answers, plans switching under a key, and a quota window change
        assertThat(admitted).isGreaterThan(1_000);
        assertThat(refused).isGreaterThan(1_000);
    }

    @Test
    void aCostAboveTheBurstIsRefusedAndChargesNothing() {
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T17:00:00Z"));
        assertThat(store.tryAcquire("k", SMALL, Costs.requests(6))).isFalse();
        assertThat(store.tryAcquire("k", SMALL, Costs.requests(5))).isTrue();
        assertThat(store.tryAcquire("k", SMALL, Costs.ONE)).isFalse();
    }

    @Test
    void aPlanWithAConcurrencyPolicyIsRefusedWithTheReason() {
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T17:00:00Z"));
        Plan plan = Plan.of("c", BurstPolicy.of("burst", 20, 2), ConcurrencyPolicy.of("inflight", 3));
        assertThatThrownBy(() -> store.tryAcquire("k", plan, Costs.ONE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use decide");
    }
}
