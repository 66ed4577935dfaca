package dev.sluice.redis.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.TcpProxy;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.time.ManualTimeSource;
import io.lettuce.core.ScoredValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §1 {@code concurrent-requests} across replicas: the in-flight count of a key lives in
 * Redis, taken in the same script as the burst and quota checks, released by {@code release}, and the
 * slots of a replica that died come back when their lease ends.
 */
@ExtendWith(RedisTestSupport.class)
class RedisConcurrencyTest {

    /** The case: at most 5 in flight, behind a burst and a daily quota that never deny here. */
    private static final Plan FIVE = Plan.of("five", BurstPolicy.of("burst", 1_000, 1),
            QuotaPolicy.daily("daily", 100_000), ConcurrencyPolicy.of("inflight", 5));

    private final String prefix = RedisTestSupport.newPrefix("concurrency");
    private final List<RedisLimiterStore> opened = new ArrayList<>();
    private final List<RedisEndpoint> endpoints = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        opened.forEach(RedisLimiterStore::close);
        endpoints.forEach(RedisEndpoint::close);
        RedisTestSupport.deletePrefix(prefix);
    }

    /** One replica: its own connection, the server's clock. */
    private RedisLimiterStore replica(RedisLimiterConfig.Builder config) {
        RedisEndpoint endpoint = RedisEndpoint.connect(RedisTestSupport.URI);
        endpoints.add(endpoint);
        RedisTestSupport.awaitUp(endpoint);
        // a stalled test machine must not send a decision to the local fallback: this is about sharing
        RedisLimiterStore s = new RedisLimiterStore(endpoint,
                config.keyPrefix(prefix).replicaCount(3).decisionTimeout(Duration.ofSeconds(5)).build());
        opened.add(s);
        return s;
    }

    private String slotsKey(String apiKey) {
        return HashTags.taggedCredential(prefix, apiKey) + "n5i:inflight";
    }

    @Test
    void threeReplicasFiringAtOneInstantHoldExactlyFiveSlotsAndAReleaseAdmitsTheNext() throws Exception {
        List<RedisLimiterStore> replicas = List.of(replica(RedisLimiterConfig.builder()),
                replica(RedisLimiterConfig.builder()), replica(RedisLimiterConfig.builder()));
        List<Allowed> held = Collections.synchronizedList(new ArrayList<>());
        int threadsPerReplica = 4;
        int callsEach = 10;
        ExecutorService pool = Executors.newFixedThreadPool(3 * threadsPerReplica);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> all = new ArrayList<>();
            for (int t = 0; t < 3 * threadsPerReplica; t++) {
                RedisLimiterStore store = replicas.get(t % 3);
                all.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < callsEach; i++) {
                        if (store.decide("sk_hot", FIVE, Costs.ONE) instanceof Allowed a) {
                            held.add(a); // never released: all these requests are still in flight
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : all) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long fallbacks = replicas.stream().mapToLong(r -> r.stats().fallbackDecisions()).sum();
        System.out.printf("concurrency 5, 3 replicas x %d threads x %d calls: admitted %d, held in redis %d,"
                + " fallback decisions %d%n", threadsPerReplica, callsEach, held.size(),
                RedisTestSupport.admin().zcard(slotsKey("sk_hot")), fallbacks);
        assertThat(fallbacks).isZero();
        assertThat(held).hasSize(5);
        assertThat(RedisTestSupport.admin().zcard(slotsKey("sk_hot"))).isEqualTo(5);
        assertThat(held).extracting(Allowed::lease).doesNotHaveDuplicates().allMatch(l -> !l.isEmpty());

        // full: every replica refuses, by the concurrency policy, with its Retry-After of 1 s
        for (RedisLimiterStore r : replicas) {
            Decision d = r.decide("sk_hot", FIVE, Costs.ONE);
            assertThat(d).isInstanceOf(Denied.class);
            assertThat(((Denied) d).policy().name()).isEqualTo("inflight");
            assertThat(((Denied) d).retryAfterSeconds()).isEqualTo(ConcurrencyPolicy.RETRY_AFTER_SECONDS);
        }
        // a release on one replica admits the next request on another
        replicas.get(0).release("sk_hot", held.get(0));
        assertThat(RedisTestSupport.admin().zcard(slotsKey("sk_hot"))).isEqualTo(4);
        Decision next = replicas.get(2).decide("sk_hot", FIVE, Costs.ONE);
        assertThat(next).isInstanceOf(Allowed.class);
        assertThat(((Allowed) next).states().get(2).remaining()).isZero();
        assertThat(replicas.get(1).decide("sk_hot", FIVE, Costs.ONE)).isInstanceOf(Denied.class);
        // releasing the same request again frees nothing
        replicas.get(1).release("sk_hot", held.get(0));
        assertThat(RedisTestSupport.admin().zcard(slotsKey("sk_hot"))).isEqualTo(5);
        // every slot released: the key's set is gone
        replicas.get(1).release("sk_hot", (Allowed) next);
        for (Allowed a : held.subList(1, 5)) {
            replicas.get(2).release("sk_hot", a);
        }
        assertThat(RedisTestSupport.admin().exists(slotsKey("sk_hot"))).isZero();
    }

    @Test
    void aDenialByAnotherPolicyTakesNoSlot() {
        Plan tiny = Plan.of("tiny", BurstPolicy.of("burst", 2, 3_600), ConcurrencyPolicy.of("inflight", 5));
        RedisLimiterStore store = replica(RedisLimiterConfig.builder());
        assertThat(store.decide("sk_t", tiny, Costs.ONE)).isInstanceOf(Allowed.class);
        assertThat(store.decide("sk_t", tiny, Costs.ONE)).isInstanceOf(Allowed.class);
        Decision third = store.decide("sk_t", tiny, Costs.ONE);
        assertThat(third).isInstanceOf(Denied.class);
        assertThat(((Denied) third).policy().name()).isEqualTo("burst");
        assertThat(RedisTestSupport.admin().zcard(HashTags.taggedCredential(prefix, "sk_t") + "n5i:inflight"))
                .isEqualTo(2);
    }

    @Test
    void eachPermitExpiresOneLeaseAfterTheServerTimeOfItsAdmissionAndTheSetHasATtl() {
        Duration lease = Duration.ofMinutes(10);
        RedisLimiterStore store = replica(RedisLimiterConfig.builder().concurrencyLease(lease));
        long before = serverMicros();
        Allowed a = (Allowed) store.decide("sk_l", FIVE, Costs.ONE);
        long after = serverMicros();

        List<ScoredValue<String>> permits = RedisTestSupport.admin().zrangeWithScores(slotsKey("sk_l"), 0, -1);
        assertThat(permits).hasSize(1);
        assertThat(permits.get(0).getValue()).isEqualTo(a.lease());
        long expiry = (long) permits.get(0).getScore();
        assertThat(expiry).isBetween(before + lease.toNanos() / 1_000, after + lease.toNanos() / 1_000);
        // R16: the set expires with its last permit (+1 ms)
        assertThat(RedisTestSupport.admin().pttl(slotsKey("sk_l")))
                .isBetween(lease.toMillis() - 60_000, lease.toMillis() + 1);
    }

    @Test
    void aLeakedSlotOfADeadReplicaComesBackWhenItsLeaseEndsOnTheScriptClock() {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        RedisLimiterConfig.Builder config = RedisLimiterConfig.builder().scriptTime(time).localTime(time)
                .concurrencyLease(Duration.ofSeconds(30)).minKeyTtl(Duration.ofMinutes(5));
        RedisLimiterStore dead = replica(config);
        RedisLimiterStore alive = replica(config);
        for (int i = 0; i < 5; i++) {
            assertThat(dead.decide("sk_d", FIVE, Costs.ONE)).isInstanceOf(Allowed.class);
        }
        dead.close(); // crashed mid-request: none of its five slots is ever released

        time.advance(Duration.ofSeconds(29));
        assertThat(alive.decide("sk_d", FIVE, Costs.ONE)).isInstanceOf(Denied.class);
        time.advance(Duration.ofSeconds(1)); // exactly one lease after the admissions: expired
        Allowed back = (Allowed) alive.decide("sk_d", FIVE, Costs.ONE);
        assertThat(back.states().get(2).used()).isEqualTo(1);
        // the admission trimmed the dead permits: only the new one is left
        assertThat(RedisTestSupport.admin().zrange(slotsKey("sk_d"), 0, -1)).containsExactly(back.lease());
    }

    @Test
    void aLeakedSlotComesBackOnTheServerClockAfterATinyLease() {
        Plan one = Plan.of("one", ConcurrencyPolicy.of("inflight", 1));
        Duration lease = Duration.ofMillis(300);
        RedisLimiterStore dead = replica(RedisLimiterConfig.builder().concurrencyLease(lease));
        RedisLimiterStore alive = replica(RedisLimiterConfig.builder().concurrencyLease(lease));
        long admittedAt = serverMicros();
        assertThat(dead.decide("sk_s", one, Costs.ONE)).isInstanceOf(Allowed.class);
        dead.close();

        // the slot must come back, and not before its lease
        await("admitted once the dead holder's lease ran out").atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(10)).until(() -> alive.decide("sk_s", one, Costs.ONE) instanceof Allowed);
        long freedAt = serverMicros();
        assertThat(freedAt - admittedAt).isGreaterThanOrEqualTo(lease.toNanos() / 1_000);
    }

    @Test
    void aReleaseSentWhileRedisIsUnreachableIsSentAgainWhenItIsBack() throws Exception {
        try (TcpProxy proxy = new TcpProxy(RedisTestSupport.PORT);
                RedisEndpoint endpoint = RedisEndpoint.connect(RedisEndpointConfig.of(proxy.uri())
                        .withProbe(Duration.ofMillis(50), Duration.ofMillis(200)))) {
            RedisTestSupport.awaitUp(endpoint);
            RedisLimiterStore store = new RedisLimiterStore(endpoint, RedisLimiterConfig.builder().keyPrefix(prefix)
                    .decisionTimeout(Duration.ofSeconds(2)).build());
            opened.add(store);
            Allowed held = (Allowed) store.decide("sk_r", FIVE, Costs.ONE);
            assertThat(RedisTestSupport.admin().zcard(slotsKey("sk_r"))).isEqualTo(1);

            proxy.stop(); // the release cannot reach Redis
            store.releaseAsync("sk_r", held).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(RedisTestSupport.admin().zcard(slotsKey("sk_r"))).isEqualTo(1);

            proxy.start(); // once the endpoint's probe finds Redis again, the release is sent again
            RedisTestSupport.await("the release sent again", Duration.ofSeconds(10),
                    () -> RedisTestSupport.admin().exists(slotsKey("sk_r")) == 0);
            assertThat(store.stats().droppedReleases()).isZero();
        }
    }

    private static long serverMicros() {
        List<String> t = RedisTestSupport.admin().time();
        return Long.parseLong(t.get(0)) * 1_000_000L + Long.parseLong(t.get(1));
    }
}
