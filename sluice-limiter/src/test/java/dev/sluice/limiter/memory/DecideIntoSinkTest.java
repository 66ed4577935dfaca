package dev.sluice.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.DecisionKind;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.PolicyStateSink;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.headers.RateLimitFields;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link InMemoryLimiterStore#decide(String, Plan, Costs, PolicyStateSink)} hands over exactly what
 * {@code decide} returns: two stores on one fake clock, the same randomised trace, the same kind of
 * answer, the same policy states (so the same {@code RateLimit} field) and the same Retry-After.
 */
class DecideIntoSinkTest {

    /** SPEC §2.1's Free plan (20 burst at 2/s, 10,000 a day) and a burst-only plan of 5 at 1/s. */
    private static final Plan FREE = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));
    private static final Plan SMALL = Plan.of("small", BurstPolicy.of("burst", 5, 5));

    /** Collects what the store hands over. */
    private static final class Collected implements PolicyStateSink {
        final List<PolicyState> states = new ArrayList<>();
        Policy denying;
        long retryAfter = -1;

        @Override
        public void state(Policy policy, long remaining, long resetSeconds, long used, long resetAtEpochSecond) {
            states.add(new PolicyState(policy, remaining, resetSeconds, used, resetAtEpochSecond));
        }

        @Override
        public void denied(Policy policy, long retryAfterSeconds) {
            denying = policy;
            retryAfter = retryAfterSeconds;
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4})
    void sameAnswersStatesAndRetryAfterAsDecideOnARandomTrace(long seed) {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T23:59:00Z"); // the trace crosses midnight
        InMemoryLimiterStore decided = new InMemoryLimiterStore(time);
        InMemoryLimiterStore sunk = new InMemoryLimiterStore(time);
        SplittableRandom random = new SplittableRandom(seed);
        int[] kinds = new int[DecisionKind.values().length];
        for (int i = 0; i < 20_000; i++) {
            String key = "k" + random.nextInt(3);
            Plan plan = random.nextInt(4) == 0 ? SMALL : FREE;
            Costs cost = Costs.requests(random.nextInt(10) == 0 ? 25 : 1 + random.nextInt(3));
            Decision d = decided.decide(key, plan, cost);
            Collected c = new Collected();
            DecisionKind kind = sunk.decide(key, plan, cost, c);
            kinds[kind.ordinal()]++;
            String at = "request " + i + " (" + key + ", " + plan.name() + ", " + cost + ")";
            switch (d) {
                case Allowed a -> {
                    assertThat(kind).as(at).isEqualTo(DecisionKind.ALLOWED);
                    assertThat(c.states).as(at).isEqualTo(a.states());
                    assertThat(c.denying).as(at).isNull();
                }
                case Denied n -> {
                    assertThat(kind).as(at).isEqualTo(DecisionKind.DENIED);
                    assertThat(c.states).as(at).isEqualTo(n.states());
                    assertThat(c.denying).as(at).isEqualTo(n.policy());
                    assertThat(c.retryAfter).as(at).isEqualTo(n.retryAfterSeconds());
                }
                case CostExceedsBurst x -> {
                    assertThat(kind).as(at).isEqualTo(DecisionKind.COST_EXCEEDS_BURST);
                    assertThat(c.states).as(at).isEmpty();
                }
                default -> throw new AssertionError(at + ": the in-memory store answered " + d);
            }
            if (!c.states.isEmpty()) {
                assertThat(RateLimitFields.appendRateLimit(new StringBuilder(), c.states).toString()).as(at)
                        .isEqualTo(RateLimitFields.appendRateLimit(new StringBuilder(), d.states()).toString());
            }
            time.advance(Duration.ofMillis(random.nextInt(120)));
        }
        for (String key : new String[] {"k0", "k1", "k2"}) {
            assertThat(sunk.usage(key, FREE)).isEqualTo(decided.usage(key, FREE));
        }
        // the trace reaches every answer
        assertThat(kinds[DecisionKind.ALLOWED.ordinal()]).isGreaterThan(1_000);
        assertThat(kinds[DecisionKind.DENIED.ordinal()]).isGreaterThan(100);
        assertThat(kinds[DecisionKind.COST_EXCEEDS_BURST.ordinal()]).isGreaterThan(100);
    }

    @Test
    void aPlanWithAConcurrencyPolicyIsRefusedWithTheReason() {
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T17:00:00Z"));
        Plan plan = Plan.of("c", BurstPolicy.of("burst", 20, 2), ConcurrencyPolicy.of("inflight", 3));
        assertThatThrownBy(() -> store.decide("k", plan, Costs.ONE, new Collected()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use decide");
    }
}
