package dev.sluice.redis.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.limiter.spi.StoreUnavailableException;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.RedisUnavailableException;
import dev.sluice.redis.TcpProxy;
import dev.sluice.time.ManualTimeSource;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.14 failure modes: Redis unreachable, stopped or paused. The store answers every decision
 * within a bounded time (the decision timeout, then at once while Redis is marked down), by the local
 * share {@code q/N} (fail-open-degraded, R17) or {@link Unavailable} (fail-closed), and returns to
 * Redis by itself. "Bounded" is checked as "no call takes longer than 1 s" (20 × the 50 ms timeout):
 * a hang check, not a speed assertion.
 */
@ExtendWith(RedisTestSupport.class)
class RedisFailureTest {

    /** Ten per minute and 1,000 a day; with N = 3 replicas the local share is 4 and 334 (R17: ceil). */
    private static final Plan PLAN = Plan.of("ten", BurstPolicy.of("burst", 10, 60), QuotaPolicy.daily("daily", 1_000));
    /** Large enough that nothing is denied in the outage tests: every decision is about who answered. */
    private static final Plan ROOMY = Plan.of("roomy", BurstPolicy.of("burst", 100_000, 3_600),
            QuotaPolicy.daily("daily", 1_000_000));

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final String prefix = RedisTestSupport.newPrefix("failure");
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        RedisTestSupport.deletePrefix(prefix);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort(); // nothing listens here once closed: connections are refused
        }
    }

    private RedisLimiterStore open(String uri, RedisLimiterConfig.Builder config) {
        RedisEndpoint endpoint = RedisEndpoint.connect(RedisEndpointConfig.of(uri)
                .withProbe(Duration.ofMillis(50), Duration.ofMillis(200)));
        toClose.add(endpoint);
        RedisLimiterStore store = new RedisLimiterStore(endpoint, config.keyPrefix(prefix).build());
        toClose.add(store);
        return store;
    }

    private static Decision decideWithin1s(RedisLimiterStore store, String key, Plan plan, Costs costs) throws Exception {
        return store.decideAsync(key, plan, costs).toCompletableFuture().get(1, TimeUnit.SECONDS);
    }

    @Test
    void anUnreachableRedisIsAnsweredByTheLocalShareOfQOverN() throws Exception {
        RedisLimiterStore store = open("redis://127.0.0.1:" + closedPort(),
                RedisLimiterConfig.builder().replicaCount(3).localTime(time));

        List<Decision> decisions = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            decisions.add(decideWithin1s(store, "sk_1", PLAN, Costs.ONE));
        }

        assertThat(decisions.subList(0, 4)).allSatisfy(d -> assertThat(d).isInstanceOf(Allowed.class));
        assertThat(decisions.get(4)).isInstanceOf(Denied.class);
        assertThat(decisions).allSatisfy(d -> assertThat(store.isFallback(d)).isTrue());
        // R17: the degraded plan states the share actually enforced: ceil(10/3) = 4, ceil(1000/3) = 334
        assertThat(decisions.get(0).plan().policies()).extracting(p -> p.quota()).containsExactly(4L, 334L);
        assertThat(decisions.get(0).states()).extracting(PolicyState::remaining).containsExactly(3L, 333L);
        assertThat(store.stats().fallbackDecisions()).isEqualTo(5);
        assertThat(store.stats().redisDecisions()).isZero();
        assertThat(store.endpoint().isUp()).isFalse();
    }

    @Test
    void failClosedAnswersUnavailableAndAUsageReadThrows() throws Exception {
        RedisLimiterStore store = open("redis://127.0.0.1:" + closedPort(), RedisLimiterConfig.builder()
                .failureMode(FailureMode.FAIL_CLOSED).unavailableRetryAfter(Duration.ofMillis(1_500)).localTime(time));

        Decision d = decideWithin1s(store, "sk_1", PLAN, Costs.ONE);

        assertThat(d).isInstanceOf(Unavailable.class);
        assertThat(((Unavailable) d).retryAfterSeconds()).isEqualTo(2); // rounded up (SPEC §2.3)
        assertThat(d.states()).isEmpty();
        assertThat(store.stats().unavailableDecisions()).isEqualTo(1);
        assertThatThrownBy(() -> store.usage("sk_1", PLAN)).isInstanceOf(RedisUnavailableException.class);
    }

    @Test
    void aFailClosedViewOfAFailOpenStoreAnswersUnavailableAndTheLocalShareStaysUntouched() throws Exception {
        RedisLimiterStore store = open("redis://127.0.0.1:" + closedPort(),
                RedisLimiterConfig.builder().replicaCount(3).localTime(time));
        LimiterStore closed = store.withFailureMode(FailureMode.FAIL_CLOSED);

        Decision refused = closed.decideAsync("sk_1", PLAN, Costs.ONE).toCompletableFuture().get(1, TimeUnit.SECONDS);
        Decision local = decideWithin1s(store, "sk_1", PLAN, Costs.ONE);

        assertThat(refused).isInstanceOf(Unavailable.class);
        assertThatThrownBy(() -> closed.usage("sk_1", PLAN)).isInstanceOf(StoreUnavailableException.class);
        // the view charged nothing: the first fail-open decision finds the whole share of 4
        assertThat(local.states()).extracting(PolicyState::remaining).containsExactly(3L, 333L);
        assertThat(store.stats().unavailableDecisions()).isEqualTo(1);
        assertThat(store.stats().fallbackDecisions()).isEqualTo(1);
        // one cached view per mode; asking for the store's own mode gives the store
        assertThat(store.withFailureMode(FailureMode.FAIL_CLOSED)).isSameAs(closed);
        assertThat(store.withFailureMode(FailureMode.FAIL_OPEN_DEGRADED)).isSameAs(store);
        assertThat(closed.withFailureMode(FailureMode.FAIL_OPEN_DEGRADED)).isSameAs(store);
    }

    @Test
    void bothViewsDecideOnTheSameRedisStateWhileRedisAnswers() throws Exception {
        RedisLimiterStore store = open(RedisTestSupport.URI, RedisLimiterConfig.builder().replicaCount(3)
                .scriptTime(time).localTime(time));
        RedisTestSupport.awaitUp(store.endpoint());
        LimiterStore closed = store.withFailureMode(FailureMode.FAIL_CLOSED);

        for (int i = 0; i < 5; i++) {
            assertThat(decideWithin1s(store, "sk_1", PLAN, Costs.ONE)).isInstanceOf(Allowed.class);
            assertThat(closed.decideAsync("sk_1", PLAN, Costs.ONE).toCompletableFuture().get(1, TimeUnit.SECONDS))
                    .isInstanceOf(Allowed.class);
        }

        // ten per minute, spent half through each view: the eleventh is refused by either
        assertThat(closed.decide("sk_1", PLAN, Costs.ONE)).isInstanceOf(Denied.class);
        assertThat(store.usage("sk_1", PLAN)).extracting(PolicyState::remaining).containsExactly(0L, 990L);
        assertThat(store.stats().redisDecisions()).isEqualTo(11);
    }

    @Test
    void aCostThatFitsThePolicyButNotTheLocalShareIsUnavailableRatherThanA400() throws Exception {
        RedisLimiterStore store = open("redis://127.0.0.1:" + closedPort(),
                RedisLimiterConfig.builder().replicaCount(3).localTime(time));

        // 6 <= q = 10, so never cost_exceeds_burst; but 6 > the share of 4: try again later (503)
        assertThat(decideWithin1s(store, "sk_1", PLAN, Costs.requests(6))).isInstanceOf(Unavailable.class);
        // 11 > q: refused before any store is asked, as always (SPEC §3.10)
        assertThat(decideWithin1s(store, "sk_1", PLAN, Costs.requests(11))).isInstanceOf(CostExceedsBurst.class);
    }

    @Test
    void aChargeOfTheFallbackIsRefundedLocally() throws Exception {
        RedisLimiterStore store = open("redis://127.0.0.1:" + closedPort(),
                RedisLimiterConfig.builder().replicaCount(3).localTime(time));
        Allowed charge = (Allowed) decideWithin1s(store, "sk_1", PLAN, Costs.requests(3));

        store.refund("sk_1", charge);

        assertThat(store.usage("sk_1", PLAN)).extracting(PolicyState::remaining).containsExactly(4L, 334L);
        assertThat(store.stats().droppedRefunds()).isZero();
    }

    @Test
    void aStoppedRedisIsAnsweredLocallyAndTheStoreReturnsToRedisByItself() throws Exception {
        TcpProxy proxy = new TcpProxy(RedisTestSupport.PORT);
        toClose.add(proxy);
        RedisLimiterStore store = open(proxy.uri(), RedisLimiterConfig.builder().replicaCount(3));
        RedisTestSupport.awaitUp(store.endpoint());
        warmUp(store);

        proxy.stop();
        int duringOutage = 0;
        while (store.endpoint().isUp() || duringOutage < 20) {
            Decision d = decideWithin1s(store, "sk_1", ROOMY, Costs.ONE);
            assertThat(d).isInstanceOf(Allowed.class);
            duringOutage += store.isFallback(d) ? 1 : 0;
            assertThat(duringOutage).as("decisions answered while stopped").isLessThan(100_000);
        }
        proxy.start();
        Decision back = null;
        int afterRestart = 0;
        while (back == null || store.isFallback(back)) {
            back = decideWithin1s(store, "sk_1", ROOMY, Costs.ONE);
            afterRestart++;
            waitForRedisUpTo(store, Duration.ofMillis(20));
            assertThat(afterRestart).as("decisions until back on redis").isLessThan(1_000);
        }

        assertThat(store.stats().fallbackDecisions()).isGreaterThanOrEqualTo(20);
        assertThat(store.endpoint().stats().downTransitions()).isPositive();
        assertThat(store.endpoint().stats().upTransitions()).isEqualTo(store.endpoint().stats().downTransitions() + 1);
        System.out.printf("stopped redis: %d decisions answered locally during the outage, %d more until back"
                + " on redis; %s; %s%n", store.stats().fallbackDecisions(), afterRestart, store.stats(),
                store.endpoint().stats());
    }

    @Test
    void aPausedRedisIsAnsweredWithinTheTimeoutAndTheStoreReturnsToRedisByItself() throws Exception {
        RedisLimiterStore store = open(RedisTestSupport.URI, RedisLimiterConfig.builder().replicaCount(3));
        RedisTestSupport.awaitUp(store.endpoint());
        int onRedis = warmUp(store);
        RedisLimiterStats before = store.stats();
        List<String> timeline = new ArrayList<>();
        long t0 = System.nanoTime();
        long slowestNanos = 0;
        int local = 0;
        boolean wasDown = false;
        try (StatefulRedisConnection<String, String> second = RedisTestSupport.newConnection()) {
            second.sync().clientPause(2_000); // CLIENT PAUSE 2000 (mode ALL): every client's commands wait
            timeline.add(ms(t0) + " ms: CLIENT PAUSE 2000 ALL");
            while (!wasDown || local == 0 || !store.endpoint().isUp()) {
                long start = System.nanoTime();
                Decision d = decideWithin1s(store, "sk_1", ROOMY, Costs.ONE);
                slowestNanos = Math.max(slowestNanos, System.nanoTime() - start);
                if (store.isFallback(d)) {
                    if (local++ == 0) {
                        timeline.add(ms(t0) + " ms: first decision answered locally (after "
                                + (System.nanoTime() - start) / 1_000_000 + " ms)");
                    }
                } else {
                    onRedis++;
                }
                if (!wasDown && !store.endpoint().isUp()) {
                    wasDown = true;
                    timeline.add(ms(t0) + " ms: redis marked down after "
                            + (store.stats().timeouts() - before.timeouts()) + " timeouts");
                }
                waitForRedisUpTo(store, Duration.ofMillis(10));
                assertThat(ms(t0)).as("back on redis within 15 s").isLessThan(15_000);
            }
            timeline.add(ms(t0) + " ms: redis up again (probe answered); " + local + " decisions answered locally");
        }
        Decision back = decideWithin1s(store, "sk_1", ROOMY, Costs.ONE);
        timeline.add(ms(t0) + " ms: next decision answered by redis: " + !store.isFallback(back));
        onRedis++;

        assertThat(store.isFallback(back)).isFalse();
        long timeouts = store.stats().timeouts() - before.timeouts();
        assertThat(timeouts).isBetween(3L, 10L); // the failure threshold, then nothing is sent
        assertThat(store.stats().fallbackDecisions() - before.fallbackDecisions()).isEqualTo(local);
        assertThat(slowestNanos).as("no decision hangs").isLessThan(TimeUnit.SECONDS.toNanos(1));
        // the decisions that timed out were still run by redis after the pause: each was refunded there,
        // so redis holds exactly the charges of the decisions it answered
        long expectedLateRefunds = store.stats().timeouts();
        int redisAnswered = onRedis;
        RedisTestSupport.await("late replies refunded", Duration.ofSeconds(10),
                () -> store.stats().lateRefunds() == expectedLateRefunds
                        && store.usage("sk_1", ROOMY).get(1).used() == redisAnswered);
        timeline.add(ms(t0) + " ms: " + store.stats().lateRefunds() + " late admissions refunded; redis counts "
                + redisAnswered + " = the decisions it answered");
        System.out.println("paused redis timeline:\n  " + String.join("\n  ", timeline)
                + "\n  slowest decision: " + slowestNanos / 1_000_000 + " ms; " + store.stats() + "; "
                + store.endpoint().stats());
    }

    /**
     * Decides until five decisions in a row were answered by Redis (a cold JVM on a busy machine may
     * miss the 50 ms at first); returns how many Redis answered. Bounded: 200 decisions.
     */
    private static int warmUp(RedisLimiterStore store) throws Exception {
        int inARow = 0;
        int onRedis = 0;
        for (int i = 0; i < 200 && inARow < 5; i++) {
            boolean local = store.isFallback(decideWithin1s(store, "sk_1", ROOMY, Costs.ONE));
            inARow = local ? 0 : inARow + 1;
            onRedis += local ? 0 : 1;
            waitForRedisUpTo(store, Duration.ofMillis(20));
        }
        assertThat(inARow).as("five decisions in a row on redis").isEqualTo(5);
        return onRedis;
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    /** A bounded wait on the condition "redis is up", so a loop does not spin while it is down. */
    private static void waitForRedisUpTo(RedisLimiterStore store, Duration bound) throws Exception {
        try {
            store.endpoint().whenUp().toCompletableFuture().get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException stillDown) {
            // go on deciding locally
        }
    }
}
