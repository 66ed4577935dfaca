package dev.sluice.limiter.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.snapshot.Outcome;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link LimiterStore} must have. Each store's test class extends this and
 * builds the store on the given {@link TimeSource} (a shared store running a server-side script
 * passes that source's readings as the script's clock in its test mode). The fake clock only ever
 * moves forwards here, both clocks together; wall-clock steps are store-specific (an in-memory
 * store reads two clocks, Redis one).
 */
public abstract class LimiterStoreContract {

    /** SPEC §2.1: the Free plan, 10 req/s with a burst of 20, and 10,000 a day. */
    protected static final Plan FREE = Plan.of("free",
            BurstPolicy.of("burst", 20, 2),
            QuotaPolicy.daily("daily", 10_000));

    protected ManualTimeSource time;
    protected LimiterStore store;

    /** A new, empty store reading {@code time}. */
    protected abstract LimiterStore newStore(TimeSource time);

    @BeforeEach
    void openStore() {
        time = ManualTimeSource.at("2026-11-30T17:00:00Z");
        store = newStore(time);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    protected Decision decide(String key, Plan plan, long cost) {
        return store.decide(key, plan, Costs.requests(cost));
    }

    protected static PolicyState state(Decision d, String policy) {
        return d.states().stream().filter(s -> s.policy().name().equals(policy)).findFirst().orElseThrow();
    }

    protected PolicyState usage(String key, Plan plan, String policy) {
        return store.usage(key, plan).stream()
                .filter(s -> s.policy().name().equals(policy)).findFirst().orElseThrow();
    }

    /** Moves both clocks to {@code instant} (which must not be in the past). */
    protected void advanceTo(String instant) {
        time.advance(Duration.between(time.now(), Instant.parse(instant)));
    }

    /** Spends {@code units} of the Free plan's daily quota in steps of 20 every 2 s (the burst allows it). */
    protected void spendDaily(String key, long units) {
        while (units > 0) {
            long cost = Math.min(20, units);
            assertThat(decide(key, FREE, cost)).isInstanceOf(Allowed.class);
            units -= cost;
            time.advance(Duration.ofSeconds(2));
        }
    }

    @Test
    void anUnseenKeyReadsAsFull() {
        List<PolicyState> states = store.usage("sk_new", FREE);

        assertThat(states).extracting(PolicyState::remaining).containsExactly(20L, 10_000L);
        assertThat(states).extracting(PolicyState::resetSeconds).containsExactly(0L, 0L);
        assertThat(states).extracting(PolicyState::used).containsExactly(0L, 0L);
    }

    @Test
    void freeKeyAtSixPmReportsTheSpecExampleValues() {
        // SPEC §2.1: at 18:00 UTC, after 13 burst tokens and 7,690 daily units are spent:
        // RateLimit: "burst";r=7;t=2, "daily";r=2310;t=21600
        spendDaily("sk_free", 7_690 - 13);
        advanceTo("2026-11-30T18:00:00Z");
        Decision last = null;
        for (int i = 0; i < 13; i++) {
            last = decide("sk_free", FREE, 1);
            assertThat(last).isInstanceOf(Allowed.class);
        }

        // 13 tokens refill at 10/s in 1.3 s; t is the ceiling: 2
        assertThat(state(last, "burst").remaining()).isEqualTo(7);
        assertThat(state(last, "burst").resetSeconds()).isEqualTo(2);
        assertThat(state(last, "daily").remaining()).isEqualTo(2_310);
        assertThat(state(last, "daily").resetSeconds()).isEqualTo(21_600);
        assertThat(state(last, "daily").resetAt()).contains(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(store.usage("sk_free", FREE)).isEqualTo(last.states());
    }

    @Test
    void spentDailyQuotaAtTwentyToSevenIsDeniedUntilMidnight() {
        spendDaily("sk_free", 10_000);
        advanceTo("2026-11-30T18:40:00Z");

        Decision d = decide("sk_free", FREE, 1);

        // SPEC §3.4: "limit": "daily", "retry_after_s": 19200 (5 h 20 min to 00:00 UTC)
        assertThat(d).isInstanceOf(Denied.class);
        Denied denied = (Denied) d;
        assertThat(denied.policy().name()).isEqualTo("daily");
        assertThat(denied.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(denied.retryAfterSeconds()).isEqualTo(19_200);
        assertThat(state(denied, "daily").resetSeconds()).isEqualTo(19_200);
        assertThat(state(denied, "daily").remaining()).isZero();
        assertThat(denied.violated()).extracting(p -> p.name()).containsExactly("daily");
    }

    @Test
    void dailyQuotaComesBackWholeAtMidnight() {
        spendDaily("sk_free", 10_000);
        advanceTo("2026-12-01T00:00:00Z");

        Decision d = decide("sk_free", FREE, 1);

        assertThat(d).isInstanceOf(Allowed.class);
        assertThat(state(d, "daily").remaining()).isEqualTo(9_999);
        assertThat(state(d, "daily").resetSeconds()).isEqualTo(86_400);
    }

    @Test
    void dailyDenialDoesNotBurnBurstTokens() {
        spendDaily("sk_free", 10_000);
        time.advance(Duration.ofSeconds(10)); // the bucket is full again
        assertThat(usage("sk_free", FREE, "burst").remaining()).isEqualTo(20);

        for (int i = 0; i < 50; i++) {
            assertThat(decide("sk_free", FREE, 1)).isInstanceOf(Denied.class);
        }

        // SPEC §3.3: no policy is charged when any denies
        assertThat(usage("sk_free", FREE, "burst").remaining()).isEqualTo(20);
        assertThat(usage("sk_free", FREE, "burst").resetSeconds()).isZero();
    }

    @Test
    void burstDenialDoesNotChargeTheDailyQuota() {
        for (int i = 0; i < 20; i++) {
            assertThat(decide("sk_free", FREE, 1)).isInstanceOf(Allowed.class);
        }

        for (int i = 0; i < 50; i++) {
            Decision d = decide("sk_free", FREE, 1);
            assertThat(d).isInstanceOf(Denied.class);
            assertThat(((Denied) d).policy().name()).isEqualTo("burst");
            assertThat(((Denied) d).outcome()).isEqualTo(Outcome.RATE_LIMITED);
        }

        assertThat(usage("sk_free", FREE, "daily").used()).isEqualTo(20);
        assertThat(usage("sk_free", FREE, "daily").remaining()).isEqualTo(9_980);
    }

    @Test
    void whenSeveralPoliciesDenyTheLongestWaitNamesTheDenial() {
        spendDaily("sk_free", 10_000 - 20);
        for (int i = 0; i < 20; i++) {
            assertThat(decide("sk_free", FREE, 1)).isInstanceOf(Allowed.class); // burst and daily both spent
        }

        Denied d = (Denied) decide("sk_free", FREE, 1);

        assertThat(d.violated()).extracting(p -> p.name()).containsExactly("burst", "daily");
        assertThat(d.policy().name()).isEqualTo("daily");
        assertThat(d.retryAfterSeconds()).isEqualTo(state(d, "daily").resetSeconds());
        // the burst member keeps its own t: the whole bucket refills in 2 s
        assertThat(state(d, "burst").resetSeconds()).isEqualTo(2);
    }

    @Test
    void r13WaitForAPartlyRefilledTokenIsExact() {
        // R13: capacity 1, refill 1/s; consume at 0, try at 200 ms
        Plan plan = Plan.of("one", BurstPolicy.of("burst", 1, 1));
        assertThat(decide("k", plan, 1)).isInstanceOf(Allowed.class);
        time.advance(Duration.ofMillis(200));

        Denied d = (Denied) decide("k", plan, 1);

        assertThat(d.exactWait()).isEqualTo(Duration.ofMillis(800));
        assertThat(d.retryAfterSeconds()).isEqualTo(1);
        assertThat(state(d, "burst").resetSeconds()).isEqualTo(1);
        time.advance(Duration.ofMillis(800));
        assertThat(decide("k", plan, 1)).isInstanceOf(Allowed.class);
    }

    @Test
    void r18NoDoubleBurstAcrossAWindowBoundary() {
        // R18: capacity 60, refill 1/s; 60 at t = 59.9 s pass, the 60 at t = 60.0 s get nothing
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 60, 60));
        time.advance(Duration.ofMillis(59_900));
        for (int i = 0; i < 60; i++) {
            assertThat(decide("k", plan, 1)).isInstanceOf(Allowed.class);
        }
        time.advance(Duration.ofMillis(100));

        for (int i = 0; i < 60; i++) {
            Decision d = decide("k", plan, 1);
            assertThat(d).isInstanceOf(Denied.class);
            assertThat(((Denied) d).retryAfterSeconds()).isEqualTo(1);
        }
    }

    @Test
    void r18AtMostCapacityPlusRateTimesIntervalPass() {
        // R18: in any interval of length d at most q + rate·d pass; flood 100 requests every 100 ms for 3 min
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 60, 60));
        List<Long> admittedAtMillis = new ArrayList<>();
        for (long ms = 0; ms <= 180_000; ms += 100) {
            for (int i = 0; i < 100; i++) {
                if (decide("k", plan, 1) instanceof Allowed) {
                    admittedAtMillis.add(ms);
                }
            }
            time.advance(Duration.ofMillis(100));
        }
        for (long start = 0; start <= 120_000; start += 100) {
            long from = start;
            assertThat(admittedAtMillis.stream().filter(t -> t >= from && t < from + 60_000).count())
                    .isLessThanOrEqualTo(120);
            assertThat(admittedAtMillis.stream().filter(t -> t >= from && t < from + 1_000).count())
                    .isLessThanOrEqualTo(61);
        }
        assertThat(admittedAtMillis).hasSize(60 + 180);
    }

    @Test
    void r14aCostAboveCapacityNeverSucceedsAndLeavesStateAlone() {
        // R14a: burst 300, cost 301, then cost 1
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 300, 60));
        Decision tooBig = decide("k", plan, 301);

        assertThat(tooBig).isEqualTo(new CostExceedsBurst(plan, plan.policy(0), 301));
        assertThat(tooBig.states()).isEmpty();
        Decision next = decide("k", plan, 1);
        assertThat(next).isInstanceOf(Allowed.class);
        assertThat(state(next, "burst").remaining()).isEqualTo(299);
    }

    @Test
    void r14aCostAboveCapacityIsRefusedEvenWhenAnotherPolicyWouldDeny() {
        spendDaily("sk_free", 10_000);

        assertThat(decide("sk_free", FREE, 21)).isInstanceOf(CostExceedsBurst.class);
    }

    @Test
    void r14aCostEqualToCapacitySucceedsOnAFullBucket() {
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 300, 60));

        Decision d = decide("k", plan, 300);

        assertThat(d).isInstanceOf(Allowed.class);
        assertThat(state(d, "burst").remaining()).isZero();
        assertThat(state(d, "burst").resetSeconds()).isEqualTo(60);
    }

    @Test
    void r02EmittedResetsAreNonNegativeAndDenialsWaitAtLeastOneSecond() {
        // R02: t and Retry-After are non-negative integers, rounded up, >= 1 on a denial
        SplittableRandom random = new SplittableRandom(2);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 7, 3), QuotaPolicy.daily("daily", 400));
        int denials = 0;
        for (int i = 0; i < 3_000; i++) {
            time.advance(Duration.ofMillis(random.nextInt(0, 120)));
            Decision d = decide("k" + random.nextInt(3), plan, random.nextInt(1, 4));
            for (PolicyState s : d.states()) {
                assertThat(s.resetSeconds()).isNotNegative();
                assertThat(s.remaining()).isBetween(0L, s.policy().quota());
            }
            if (d instanceof Denied denied) {
                denials++;
                assertThat(denied.retryAfterSeconds()).isGreaterThanOrEqualTo(1);
                assertThat(denied.retryAfterSeconds())
                        .isEqualTo(-Math.floorDiv(-denied.exactWait().toNanos(), 1_000_000_000L));
                assertThat(state(denied, denied.policy().name()).resetSeconds())
                        .isEqualTo(denied.retryAfterSeconds());
            }
        }
        assertThat(denials).isGreaterThan(100);
    }

    @Test
    void tIsTheCeilingOfTheTimeToFull() {
        // 10/s: one token takes 100 ms to come back; t is 1, not 0 (SPEC §1: never optimistic)
        Decision d = decide("k", FREE, 1);
        assertThat(state(d, "burst").remaining()).isEqualTo(19);
        assertThat(state(d, "burst").resetSeconds()).isEqualTo(1);
        assertThat(state(d, "daily").resetSeconds()).isEqualTo(25_200); // 17:00 -> 00:00

        time.advance(Duration.ofMillis(100));
        assertThat(usage("k", FREE, "burst").remaining()).isEqualTo(20);
        assertThat(usage("k", FREE, "burst").resetSeconds()).isZero();
    }

    @Test
    void aBucketIdleForTenYearsIsSimplyFull() {
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 20, 2));
        decide("k", plan, 20);
        time.advance(Duration.ofDays(3_653));

        Decision d = decide("k", plan, 20);

        assertThat(d).isInstanceOf(Allowed.class);
        assertThat(state(d, "burst").remaining()).isZero();
    }

    @Test
    void usageChargesNothing() {
        decide("k", FREE, 5);
        List<PolicyState> before = store.usage("k", FREE);
        for (int i = 0; i < 100; i++) {
            store.usage("k", FREE);
        }

        assertThat(store.usage("k", FREE)).isEqualTo(before);
        assertThat(before).extracting(PolicyState::remaining).containsExactly(15L, 9_995L);
    }

    @Test
    void keysAreIndependent() {
        decide("a", FREE, 20);

        assertThat(decide("b", FREE, 20)).isInstanceOf(Allowed.class);
        assertThat(decide("a", FREE, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void contentBytePoliciesChargeTheContentLengthAndRequestPoliciesTheRouteCost() {
        Plan plan = Plan.of("upload",
                new BurstPolicy("bytes", 1_000_000, 1, QuotaUnit.CONTENT_BYTES, null),
                BurstPolicy.of("requests", 10, 1));

        Decision d = store.decide("k", plan, new Costs(3, 250_000));

        assertThat(state(d, "bytes").remaining()).isEqualTo(750_000);
        assertThat(state(d, "requests").remaining()).isEqualTo(7);
        assertThat(store.decide("k", plan, new Costs(1, 1_000_001))).isInstanceOf(CostExceedsBurst.class);
        assertThat(store.decide("k", plan, new Costs(1, 800_000))).isInstanceOf(Denied.class);
        assertThat(usage("k", plan, "requests").remaining()).isEqualTo(7);
    }

    @Test
    void aRefundGivesBackWhatTheChargeTook() {
        // SPEC §3.9: an upstream 503 is refunded to the policies it was charged to
        decide("k", FREE, 5);
        Allowed charge = (Allowed) decide("k", FREE, 10);

        store.refund("k", charge);

        assertThat(store.usage("k", FREE)).extracting(PolicyState::remaining).containsExactly(15L, 9_995L);
    }

    @Test
    void aRefundNeverFillsABucketBeyondFull() {
        Allowed charge = (Allowed) decide("k", FREE, 10);
        time.advance(Duration.ofMillis(500)); // 5 of the 10 came back

        store.refund("k", charge);

        assertThat(usage("k", FREE, "burst").remaining()).isEqualTo(20);
        assertThat(decide("k", FREE, 20)).isInstanceOf(Allowed.class);
        assertThat(decide("k", FREE, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void aRefundAfterTheQuotaWindowRolledOverLeavesTheNewWindowAlone() {
        advanceTo("2026-11-30T23:59:59Z");
        Allowed charge = (Allowed) decide("k", FREE, 10);
        advanceTo("2026-12-01T00:00:01Z");
        decide("k", FREE, 3);

        store.refund("k", charge);

        assertThat(usage("k", FREE, "daily").used()).isEqualTo(3);
    }

    @Test
    void monthlyQuotaRenewsOnTheAnchorDayClampedToTheMonth() {
        // anchor 31: in February 2027 the window renews on the 28th, then on 31 March
        Plan plan = Plan.of("m", new QuotaPolicy("monthly", 3, CalendarWindow.monthly(31), QuotaUnit.REQUESTS, null));
        advanceTo("2027-02-27T12:00:00Z");
        assertThat(decide("k", plan, 3)).isInstanceOf(Allowed.class);
        Denied d = (Denied) decide("k", plan, 1);
        assertThat(d.retryAfterSeconds()).isEqualTo(12 * 3_600); // to 2027-02-28T00:00Z
        assertThat(state(d, "monthly").resetAt()).contains(Instant.parse("2027-02-28T00:00:00Z"));

        advanceTo("2027-02-28T00:00:00Z");
        Decision next = decide("k", plan, 1);

        assertThat(next).isInstanceOf(Allowed.class);
        assertThat(state(next, "monthly").resetAt()).contains(Instant.parse("2027-03-31T00:00:00Z"));
    }

    @Test
    void concurrentRequestsAtOneInstantAdmitExactlyTheLimit() throws Exception {
        Plan plan = Plan.of("five", BurstPolicy.of("burst", 5, 60), QuotaPolicy.daily("daily", 1_000));
        Plan single = Plan.of("five-single", BurstPolicy.of("burst", 5, 60));
        assertThat(admittedByConcurrentCalls(plan, "multi", 8, 25)).isEqualTo(5);
        assertThat(admittedByConcurrentCalls(single, "single", 8, 25)).isEqualTo(5);
    }

    private int admittedByConcurrentCalls(Plan plan, String key, int threads, int callsEach) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                results.add(pool.submit(() -> {
                    start.await();
                    int admitted = 0;
                    for (int i = 0; i < callsEach; i++) {
                        if (decide(key, plan, 1) instanceof Allowed) {
                            admitted++;
                        }
                    }
                    return admitted;
                }));
            }
            start.countDown();
            int total = 0;
            for (Future<Integer> f : results) {
                total += f.get(30, TimeUnit.SECONDS);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    // ---- concurrent-requests policies (SPEC §1); skipped by a store that does not support them --------

    /** A burst of 20 per 2 s and at most 3 requests in flight. */
    protected static final Plan THREE_IN_FLIGHT = Plan.of("conc",
            BurstPolicy.of("burst", 20, 2), ConcurrencyPolicy.of("inflight", 3));

    private void assumeConcurrency() {
        assumeTrue(store.supportsConcurrencyPolicies(), "this store does not hold concurrency policies");
    }

    @Test
    void aConcurrencyPolicyAdmitsUpToQInFlightAndAReleaseFreesOneSlot() {
        assumeConcurrency();
        List<Allowed> held = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            held.add((Allowed) decide("k", THREE_IN_FLIGHT, 1));
        }
        assertThat(state(held.get(2), "inflight").remaining()).isZero();
        assertThat(state(held.get(2), "inflight").used()).isEqualTo(3);

        Decision fourth = decide("k", THREE_IN_FLIGHT, 1);
        assertThat(fourth).isInstanceOf(Denied.class);
        Denied d = (Denied) fourth;
        assertThat(d.policy().name()).isEqualTo("inflight");
        assertThat(d.retryAfterSeconds()).isEqualTo(ConcurrencyPolicy.RETRY_AFTER_SECONDS);
        assertThat(d.outcome()).isEqualTo(Outcome.RATE_LIMITED);

        store.release("k", held.get(0));
        Decision fifth = decide("k", THREE_IN_FLIGHT, 1);
        assertThat(fifth).isInstanceOf(Allowed.class);
        assertThat(state(fifth, "inflight").remaining()).isZero();
    }

    @Test
    void aConcurrencyDenialChargesNoOtherPolicyAndABurstDenialTakesNoSlot() {
        assumeConcurrency();
        for (int i = 0; i < 3; i++) {
            decide("k", THREE_IN_FLIGHT, 1);
        }
        assertThat(decide("k", THREE_IN_FLIGHT, 1)).isInstanceOf(Denied.class);
        // SPEC §3.3: the refused request left the burst as it was (3 spent, nothing more)
        assertThat(usage("k", THREE_IN_FLIGHT, "burst").remaining()).isEqualTo(17);

        Plan tinyBurst = Plan.of("tiny", BurstPolicy.of("burst", 1, 60), ConcurrencyPolicy.of("inflight", 3));
        Allowed first = (Allowed) decide("t", tinyBurst, 1);
        store.release("t", first);
        assertThat(decide("t", tinyBurst, 1)).isInstanceOf(Denied.class); // the burst refuses
        assertThat(usage("t", tinyBurst, "inflight").remaining()).isEqualTo(3);
    }

    @Test
    void aRefundGivesBackTheBurstButNotTheSlot() {
        assumeConcurrency();
        Allowed a = (Allowed) decide("k", THREE_IN_FLIGHT, 1);

        store.refund("k", a);

        assertThat(usage("k", THREE_IN_FLIGHT, "burst").remaining()).isEqualTo(20);
        assertThat(usage("k", THREE_IN_FLIGHT, "inflight").remaining()).isEqualTo(2);
        store.release("k", a);
        assertThat(usage("k", THREE_IN_FLIGHT, "inflight").remaining()).isEqualTo(3);
    }

    @Test
    void releasingMoreThanWasTakenNeverMintsSlots() {
        assumeConcurrency();
        Allowed a = (Allowed) decide("k", THREE_IN_FLIGHT, 1);
        store.release("k", a);
        store.release("k", a);

        assertThat(usage("k", THREE_IN_FLIGHT, "inflight").remaining()).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            assertThat(decide("k", THREE_IN_FLIGHT, 1)).isInstanceOf(Allowed.class);
        }
        assertThat(decide("k", THREE_IN_FLIGHT, 1)).isInstanceOf(Denied.class);
    }

    @Test
    void slotsAreHeldPerKey() {
        assumeConcurrency();
        for (int i = 0; i < 3; i++) {
            decide("a", THREE_IN_FLIGHT, 1);
        }
        assertThat(decide("b", THREE_IN_FLIGHT, 1)).isInstanceOf(Allowed.class);
    }

    @Test
    void concurrentCallersNeverHoldMoreThanQSlots() throws Exception {
        assumeConcurrency();
        Plan plan = Plan.of("c", ConcurrencyPolicy.of("inflight", 4));
        java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger maxSeen = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> all = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                all.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 200; i++) {
                        if (store.decide("k", plan, Costs.ONE) instanceof Allowed a) {
                            maxSeen.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                            admitted.incrementAndGet();
                            inFlight.decrementAndGet();
                            store.release("k", a);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : all) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(maxSeen.get()).isLessThanOrEqualTo(4);
        assertThat(admitted.get()).isPositive();
        assertThat(usage("k", plan, "inflight").remaining()).isEqualTo(4); // every slot came back
    }
}
