package dev.sluice.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.DecisionKind;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.PolicyStateSink;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.time.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A two-policy key updated from several threads at once charges both policies together or neither
 * (SPEC §3.3): on a frozen clock the admissions equal the smaller quota and both policies count them.
 */
class TwoPolicyAtomicityTest {

    /** burst 1,000 (no refill: the clock is frozen), daily 600: the daily quota binds. */
    private static final Plan PLAN = Plan.of("p", BurstPolicy.of("burst", 1_000, 1), QuotaPolicy.daily("daily", 600));

    @Test
    void concurrentAdmissionsChargeBothPoliciesExactlyOnce() throws Exception {
        ManualTimeSource time = ManualTimeSource.at("2026-12-06T12:00:00Z");
        InMemoryLimiterStore store = new InMemoryLimiterStore(time);
        InMemoryLimiterStore.KeyHandle handle = store.handle("k", PLAN);
        AtomicInteger admitted = new AtomicInteger();
        PolicyStateSink ignore = new PolicyStateSink() {
            @Override
            public void state(Policy policy, long remaining, long resetSeconds, long used, long resetAtEpochSecond) {}

            @Override
            public void denied(Policy policy, long retryAfterSeconds) {}
        };
        int threads = 4;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int kind = t;
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < 1_000; i++) {
                    boolean ok = switch (kind) {
                        case 0 -> store.tryAcquire("k", PLAN, Costs.ONE);
                        case 1 -> handle.tryAcquire(Costs.ONE);
                        case 2 -> store.decide("k", PLAN, Costs.ONE) instanceof Allowed;
                        default -> handle.decide(Costs.ONE, ignore) == DecisionKind.ALLOWED;
                    };
                    if (ok) {
                        admitted.incrementAndGet();
                    }
                }
            });
            w.start();
            workers.add(w);
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        assertThat(admitted.get()).isEqualTo(600);
        List<PolicyState> usage = store.usage("k", PLAN);
        assertThat(usage.get(0).used()).isEqualTo(600);
        assertThat(usage.get(1).used()).isEqualTo(600);
    }
}
