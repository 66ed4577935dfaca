package dev.sluice.limiter.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.limiter.spi.LimiterStoreContract;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class InMemoryLimiterStoreTest extends LimiterStoreContract {

    @Override
    protected LimiterStore newStore(TimeSource time) {
        return new InMemoryLimiterStore(time);
    }

    private static final Plan TEN_PER_SECOND = Plan.of("p", BurstPolicy.of("burst", 10, 10));

    @Test
    void r15aBackwardWallClockStepMintsNoDeficit() {
        // R15a: capacity 10, 1/s; consume 3; the wall clock jumps -11 s while no monotonic time passes
        decide("k", TEN_PER_SECOND, 3);
        time.stepWallClock(Duration.ofSeconds(-11));

        assertThat(usage("k", TEN_PER_SECOND, "burst").remaining()).isEqualTo(7);
        Decision d = decide("k", TEN_PER_SECOND, 1);
        assertThat(d).isInstanceOf(Allowed.class);
        assertThat(state(d, "burst").remaining()).isEqualTo(6);
    }

    @Test
    void r15aForwardWallClockStepGrantsNoTokens() {
        decide("k", TEN_PER_SECOND, 10);
        time.stepWallClock(Duration.ofSeconds(11));

        assertThat(decide("k", TEN_PER_SECOND, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void r15bAStaleMonotonicReadingNeverRewindsTheBucket() {
        // R15b: fill rate 100/s, huge burst; 10 taken at t+10 s; a stale reading at t+9 s; read at t+11 s
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 100_000, 1_000));
        time.setNanoTime(10_000_000_000L);
        decide("k", plan, 10);
        time.setNanoTime(9_000_000_000L);
        decide("k", plan, 0);
        time.setNanoTime(11_000_000_000L);

        // 1 s of refill at 100/s since the 10 were taken: back to full, and not a token more
        assertThat(usage("k", plan, "burst").remaining()).isEqualTo(100_000);
        assertThat(decide("k", plan, 100_000)).isInstanceOf(Allowed.class);
        assertThat(decide("k", plan, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void r15bMonotonicOriginNearLongMaxValueStillMeasuresElapsedTime() {
        // R15: nanoTime starting at Long.MAX_VALUE - 1e9 and advancing 2 s (it wraps) measures 2 s
        ManualTimeSource nearMax = new ManualTimeSource(Instant.parse("2026-11-30T18:00:00Z"),
                Long.MAX_VALUE - 1_000_000_000L);
        InMemoryLimiterStore s = new InMemoryLimiterStore(nearMax);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 4, 4)); // 1 per second
        assertThat(s.decide("k", plan, dev.sluice.limiter.Costs.requests(4))).isInstanceOf(Allowed.class);

        nearMax.advance(Duration.ofSeconds(2));

        assertThat(s.usage("k", plan).get(0).remaining()).isEqualTo(2);
    }

    @Test
    void aBackwardWallClockStepOverMidnightNeverHandsOutASecondWindow() {
        Plan plan = Plan.of("d", QuotaPolicy.daily("daily", 100));
        advanceTo("2026-11-30T23:59:50Z");
        assertThat(decide("k", plan, 100)).isInstanceOf(Allowed.class);
        advanceTo("2026-12-01T00:00:10Z");
        assertThat(decide("k", plan, 100)).isInstanceOf(Allowed.class); // the new day's quota

        time.stepWallClock(Duration.ofSeconds(-30)); // back to 23:59:40 on the 30th

        Denied d = (Denied) decide("k", plan, 1);
        // still counted against 1 December: back in 24 h 20 s, not at the (already passed) midnight
        assertThat(d.retryAfterSeconds()).isEqualTo(86_400 + 20);
        assertThat(state(d, "daily").resetAt()).contains(Instant.parse("2026-12-02T00:00:00Z"));
    }

    @Test
    void fullKeysAreEvictedAndOthersKept() {
        InMemoryLimiterStore s = (InMemoryLimiterStore) store;
        Plan burstOnly = Plan.of("b", BurstPolicy.of("burst", 10, 1));
        s.decide("short", burstOnly, dev.sluice.limiter.Costs.ONE);
        s.decide("daily", FREE, dev.sluice.limiter.Costs.ONE);
        time.advance(Duration.ofSeconds(5));

        assertThat(s.evictFull()).isEqualTo(1);

        assertThat(s.keyCount()).isEqualTo(1);
        assertThat(usage("daily", FREE, "daily").used()).isEqualTo(1);
    }

    @Test
    void aFloodOfRandomKeysStaysBounded() {
        // burst-only plan, one request per key, 1,000 new keys per second for 60 s; w = 1 s
        InMemoryLimiterStore s = new InMemoryLimiterStore(time, 1_024);
        Plan burstOnly = Plan.of("b", BurstPolicy.of("burst", 10, 1));
        int maxKeys = 0;
        for (int i = 0; i < 60_000; i++) {
            s.decide("random-" + i, burstOnly, dev.sluice.limiter.Costs.ONE);
            maxKeys = Math.max(maxKeys, s.keyCount());
            time.advance(Duration.ofMillis(1));
        }
        // at most max(1024, 2 × the ~1,000 keys live within w): a bound, not a growth with the flood
        assertThat(maxKeys).isLessThanOrEqualTo(4_096);
    }

    @Test
    void theSweepANewKeyTriggersSparesThatKeysFreshState() {
        // threshold 2 and one key not full: inserting a second key sweeps; the new key's fresh state is
        // full, and evicting it would send its decide round again for ever (threshold stays 2)
        InMemoryLimiterStore s = new InMemoryLimiterStore(time, 2);
        Plan burstOnly = Plan.of("b", BurstPolicy.of("burst", 10, 1));
        s.decide("spent", burstOnly, dev.sluice.limiter.Costs.ONE);
        assertThat(s.decide("new", burstOnly, dev.sluice.limiter.Costs.ONE)).isInstanceOf(Allowed.class);
        assertThat(s.keyCount()).isEqualTo(2);
    }

    @Test
    void aKeyMovedToAnotherPlanKeepsThePoliciesBothShare() {
        Plan pro = Plan.of("pro", BurstPolicy.of("burst", 100, 10), QuotaPolicy.daily("daily", 10_000));
        decide("k", FREE, 10);

        Decision d = decide("k", pro, 1);

        // "daily" is the same policy in both plans and carries over; "burst" differs and starts full
        assertThat(state(d, "daily").used()).isEqualTo(11);
        assertThat(state(d, "burst").remaining()).isEqualTo(99);
    }
}
