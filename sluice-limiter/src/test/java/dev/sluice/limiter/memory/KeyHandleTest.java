package dev.sluice.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.DecisionKind;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link InMemoryLimiterStore.KeyHandle} decides exactly as the keyed methods on the same key and plan:
 * two stores on one fake clock, one asked by key and one through handles, the same randomised trace.
 */
class KeyHandleTest {

    /** SPEC §2.1's Free plan (20 burst at 2/s, 10,000 a day) and a burst-only plan of 5 at 1/s. */
    private static final Plan FREE = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));
    private static final Plan SMALL = Plan.of("small", BurstPolicy.of("burst", 5, 5));

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void sameDecisionsAsByKeyOnARandomTrace(long seed) {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T23:59:00Z"); // the trace crosses midnight
        InMemoryLimiterStore byKey = new InMemoryLimiterStore(time);
        InMemoryLimiterStore byHandle = new InMemoryLimiterStore(time, 2); // sweeps often: handles outlive states
        InMemoryLimiterStore.KeyHandle[][] handles = new InMemoryLimiterStore.KeyHandle[3][2];
        for (int k = 0; k < 3; k++) {
            handles[k][0] = byHandle.handle("k" + k, FREE);
            handles[k][1] = byHandle.handle("k" + k, SMALL);
        }
        SplittableRandom random = new SplittableRandom(seed);
        int admitted = 0;
        int refused = 0;
        for (int i = 0; i < 20_000; i++) {
            int k = random.nextInt(3);
            int p = random.nextInt(4) == 0 ? 1 : 0; // plans switch under a key
            Plan plan = p == 1 ? SMALL : FREE;
            Costs cost = Costs.requests(random.nextInt(10) == 0 ? 25 : 1 + random.nextInt(3));
            Decision expected = byKey.decide("k" + k, plan, cost);
            InMemoryLimiterStore.KeyHandle h = handles[k][p];
            switch (random.nextInt(3)) {
                case 0 -> assertThat(h.decide(cost)).as("request %d", i).isEqualTo(expected);
                case 1 -> assertThat(h.tryAcquire(cost)).as("request %d", i).isEqualTo(expected instanceof Allowed);
                default -> assertThat(h.decide(cost, (policy, r, t, used, resetAt) -> {}))
                        .as("request %d", i).isEqualTo(kindOf(expected));
            }
            if (expected instanceof Allowed) {
                admitted++;
            } else {
                refused++;
            }
            if (random.nextInt(50) == 0) {
                byHandle.evictFull();
            }
            time.advance(Duration.ofMillis(random.nextInt(120)));
        }
        for (int k = 0; k < 3; k++) {
            assertThat(byHandle.usage("k" + k, FREE)).isEqualTo(byKey.usage("k" + k, FREE));
        }
        assertThat(admitted).isGreaterThan(1_000);
        assertThat(refused).isGreaterThan(1_000);
    }

    @Test
    void aHandleAndTheKeyedCallsShareTheKeysState() {
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T17:00:00Z"));
        InMemoryLimiterStore.KeyHandle h = store.handle("k", SMALL);
        assertThat(h.tryAcquire(Costs.requests(3))).isTrue();
        assertThat(store.tryAcquire("k", SMALL, Costs.requests(2))).isTrue();
        assertThat(h.tryAcquire(Costs.ONE)).isFalse();
        assertThat(h.key()).isEqualTo("k");
        assertThat(h.plan()).isEqualTo(SMALL);
    }

    @Test
    void aHandleOutlivesTheEvictionOfAFullKey() {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T17:00:00Z");
        InMemoryLimiterStore store = new InMemoryLimiterStore(time);
        InMemoryLimiterStore.KeyHandle h = store.handle("k", SMALL);
        assertThat(h.tryAcquire(Costs.requests(5))).isTrue();
        time.advance(Duration.ofSeconds(5)); // 5 per 5 s: full again
        assertThat(store.evictFull()).isEqualTo(1);
        assertThat(store.keyCount()).isZero();
        assertThat(h.tryAcquire(Costs.requests(5))).isTrue();
        assertThat(store.keyCount()).isEqualTo(1);
        assertThat(store.tryAcquire("k", SMALL, Costs.ONE)).isFalse();
    }

    @Test
    void aCostAboveTheBurstIsCostExceedsBurst() {
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T17:00:00Z"));
        InMemoryLimiterStore.KeyHandle h = store.handle("k", SMALL);
        assertThat(h.decide(Costs.requests(6), (policy, r, t, used, resetAt) -> {}))
                .isEqualTo(DecisionKind.COST_EXCEEDS_BURST);
        assertThat(h.tryAcquire(Costs.requests(6))).isFalse();
    }

    @Test
    void aPlanWithAConcurrencyPolicyDecidesButRefusesTryAcquire() {
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T17:00:00Z"));
        Plan plan = Plan.of("c", BurstPolicy.of("burst", 20, 2), ConcurrencyPolicy.of("inflight", 1));
        InMemoryLimiterStore.KeyHandle h = store.handle("k", plan);
        Decision first = h.decide(Costs.ONE);
        assertThat(first).isInstanceOf(Allowed.class);
        assertThat(kindOf(h.decide(Costs.ONE))).isEqualTo(DecisionKind.DENIED);
        store.release(h.key(), (Allowed) first);
        assertThat(h.decide(Costs.ONE)).isInstanceOf(Allowed.class);
        assertThatThrownBy(() -> h.tryAcquire(Costs.ONE)).isInstanceOf(IllegalArgumentException.class);
    }

    private static DecisionKind kindOf(Decision d) {
        return switch (d) {
            case Allowed a -> DecisionKind.ALLOWED;
            case dev.sluice.limiter.Denied x -> DecisionKind.DENIED;
            case dev.sluice.limiter.CostExceedsBurst c -> DecisionKind.COST_EXCEEDS_BURST;
            case dev.sluice.limiter.Unavailable u -> throw new AssertionError("in-memory store: " + u);
        };
    }
}
