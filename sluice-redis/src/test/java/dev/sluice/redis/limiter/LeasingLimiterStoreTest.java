package dev.sluice.redis.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Lease mode: fewer round trips, admissions within the documented over-admission bound. */
@ExtendWith(RedisTestSupport.class)
class LeasingLimiterStoreTest {

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T23:58:00Z");
    private final String prefix = RedisTestSupport.newPrefix("lease");
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        RedisTestSupport.deletePrefix(prefix);
    }

    private RedisLimiterStore replica() {
        RedisLimiterStore s = new RedisLimiterStore(RedisTestSupport.endpoint(), RedisLimiterConfig.builder()
                .keyPrefix(prefix).scriptTime(time).localTime(time).minKeyTtl(Duration.ofMinutes(5))
                .decisionTimeout(Duration.ofSeconds(5)).build());
        toClose.add(s);
        return s;
    }

    @Test
    void aLeaseAdmitsTheNextRequestsWithoutARoundTripAndReturnsItsRest() {
        RedisLimiterStore redis = replica();
        LeasingLimiterStore leasing = new LeasingLimiterStore(redis, 10, Duration.ofMillis(500), time);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 100, 10), QuotaPolicy.daily("daily", 1_000));

        for (int i = 0; i < 7; i++) {
            assertThat(leasing.decide("sk_1", plan, Costs.ONE)).isInstanceOf(Allowed.class);
        }

        assertThat(redis.stats().redisDecisions()).isEqualTo(1);
        assertThat(leasing.stats().admittedFromLeases()).isEqualTo(6);
        // Redis counts the whole batch of 10 as used while the lease lives
        assertThat(redis.usage("sk_1", plan)).extracting(PolicyState::used).containsExactly(10L, 10L);
        time.advance(Duration.ofMillis(500));
        assertThat(leasing.returnExpiredLeases()).isEqualTo(1);
        // 3 units went back; the burst has also refilled 5 units in 500 ms (10/s)
        assertThat(redis.usage("sk_1", plan)).extracting(PolicyState::used).containsExactly(2L, 7L);
    }

    @Test
    void aFailClosedViewSpendsTheSameLeases() {
        RedisLimiterStore redis = replica();
        LeasingLimiterStore leasing = new LeasingLimiterStore(redis, 10, Duration.ofMillis(500), time);
        LimiterStore closed = leasing.withFailureMode(FailureMode.FAIL_CLOSED);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 100, 10), QuotaPolicy.daily("daily", 1_000));

        assertThat(leasing.decide("sk_1", plan, Costs.ONE)).isInstanceOf(Allowed.class);
        for (int i = 0; i < 4; i++) {
            assertThat(closed.decide("sk_1", plan, Costs.ONE)).isInstanceOf(Allowed.class);
        }

        assertThat(redis.stats().redisDecisions()).isEqualTo(1); // one lease of 10, spent through both
        assertThat(leasing.stats().admittedFromLeases()).isEqualTo(4);
        assertThat(leasing.withFailureMode(FailureMode.FAIL_OPEN_DEGRADED)).isSameAs(leasing);
        assertThat(leasing.withFailureMode(FailureMode.FAIL_CLOSED)).isSameAs(closed);
    }

    @Test
    void anOwningLeaseStoreReturnsExpiredLeasesOnItsOwn() {
        RedisLimiterStore redis = replica();
        LeasingLimiterStore leasing = LeasingLimiterStore.owning(redis, 10, Duration.ofMillis(20), time);
        toClose.add(leasing);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 100, 3_600), QuotaPolicy.daily("daily", 1_000));
        assertThat(leasing.decide("sk_1", plan, Costs.ONE)).isInstanceOf(Allowed.class);

        time.advance(Duration.ofMillis(20)); // the lease expires; the store's timer finds it within ~20 ms

        RedisTestSupport.await("the expired lease returned by the store's timer", Duration.ofSeconds(10),
                () -> leasing.stats().unitsReturned() == 9);
        // the counter moves when the refund is sent; Redis has it once it has answered
        RedisTestSupport.await("the returned units refunded on redis", Duration.ofSeconds(10),
                () -> redis.usage("sk_1", plan).get(0).used() == 1);
        assertThat(redis.usage("sk_1", plan)).extracting(PolicyState::used).containsExactly(1L, 1L);
    }

    @Test
    void threeLeasingReplicasStayWithinTheDocumentedBound() {
        // 20 per 2 s (10/s) and 300 a day, offered about 10/s for 5 min from 23:58 UTC; N = 3 replicas,
        // leases of L = 5 for 500 ms
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 300));
        int n = 3;
        long lease = 5;
        List<LeasingLimiterStore> replicas = new ArrayList<>();
        List<RedisLimiterStore> underlying = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            RedisLimiterStore r = replica();
            underlying.add(r);
            replicas.add(new LeasingLimiterStore(r, lease, Duration.ofMillis(500), time));
        }
        SplittableRandom random = new SplittableRandom(17);
        List<Long> admittedAtMs = new ArrayList<>();
        long startMs = time.now().toEpochMilli();
        int strictAdmitted = 0;
        for (int step = 0; step < 3_000; step++) {
            int advance = random.nextInt(0, 200);
            time.advance(Duration.ofMillis(advance));
            LeasingLimiterStore replica = replicas.get(random.nextInt(n));
            if (replica.decide("sk_shared", plan, Costs.ONE) instanceof Allowed) {
                admittedAtMs.add(time.now().toEpochMilli() - startMs);
            }
            if (step % 25 == 0) {
                replicas.forEach(LeasingLimiterStore::returnExpiredLeases);
            }
        }
        // the strict reference on the same arrival times
        SplittableRandom again = new SplittableRandom(17);
        ManualTimeSource refTime = ManualTimeSource.at("2026-11-30T23:58:00Z");
        InMemoryLimiterStore reference = new InMemoryLimiterStore(refTime);
        for (int step = 0; step < 3_000; step++) {
            refTime.advance(Duration.ofMillis(again.nextInt(0, 200)));
            again.nextInt(n);
            if (reference.decide("sk_shared", plan, Costs.ONE) instanceof Allowed) {
                strictAdmitted++;
            }
        }

        long bound = n * lease;
        // burst: in any interval of d seconds at most q + rate·d + N·L
        for (int d : new int[] {1, 5, 10, 30}) {
            for (long from = 0; from <= admittedAtMs.getLast(); from += 100) {
                long f = from;
                long count = admittedAtMs.stream().filter(t -> t >= f && t < f + d * 1_000L).count();
                assertThat(count).as("admitted in [%d ms, +%d s)", from, d).isLessThanOrEqualTo(20 + 10L * d + bound);
            }
        }
        // quota: at most q + N·L in each calendar day (the trace crosses midnight after 120 s)
        long midnightMs = Instant.parse("2026-12-01T00:00:00Z").toEpochMilli() - startMs;
        long before = admittedAtMs.stream().filter(t -> t < midnightMs).count();
        long after = admittedAtMs.size() - before;
        assertThat(before).isLessThanOrEqualTo(300 + bound);
        assertThat(after).isLessThanOrEqualTo(300 + bound);

        long roundTrips = underlying.stream().mapToLong(r -> r.stats().redisDecisions()).sum();
        long fromLeases = replicas.stream().mapToLong(r -> r.stats().admittedFromLeases()).sum();
        assertThat(fromLeases).isPositive();
        assertThat(roundTrips).isLessThan(3_000);
        // approximate, not starved: within N·L per day of the strict limiter on the same arrivals
        assertThat((long) admittedAtMs.size()).isGreaterThanOrEqualTo(strictAdmitted - 2 * bound);

        replicas.forEach(LeasingLimiterStore::close); // every unspent unit goes back
        long usedToday = redisDailyUsed(underlying.getFirst(), plan);
        assertThat(usedToday).isBetween(after - bound, after);
        System.out.printf("lease mode: %d admitted (strict: %d), %d before / %d after midnight, %d from leases,"
                + " %d round trips for 3000 requests%n", admittedAtMs.size(), strictAdmitted, before, after, fromLeases,
                roundTrips);
    }

    private static long redisDailyUsed(RedisLimiterStore store, Plan plan) {
        return store.usage("sk_shared", plan).get(1).used();
    }

    @Test
    void aPlanCountingContentBytesIsNeverLeased() {
        RedisLimiterStore redis = replica();
        LeasingLimiterStore leasing = new LeasingLimiterStore(redis, 10, Duration.ofMillis(500), time);
        Plan bytes = Plan.of("b", new BurstPolicy("bytes", 1_000_000, 1, dev.sluice.limiter.QuotaUnit.CONTENT_BYTES,
                null));

        Decision d = leasing.decide("sk_1", bytes, new Costs(1, 1_000));
        leasing.decide("sk_1", bytes, new Costs(1, 1_000));

        assertThat(d).isInstanceOf(Allowed.class);
        assertThat(redis.stats().redisDecisions()).isEqualTo(2);
        assertThat(leasing.stats().leasesTaken()).isZero();
    }
}
