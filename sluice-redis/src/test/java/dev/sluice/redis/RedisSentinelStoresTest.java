package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.redis.client.RedisClientLimits;
import dev.sluice.redis.client.RedisTokenBucketStore;
import dev.sluice.redis.client.SharedLimitsConfig;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The stores through a real Redis Sentinel that the class starts on loopback ports (a primary, its
 * replica, one Sentinel; once, shared): a {@code redis-sentinel://…#master} URL reaches the primary, a
 * fail-over moves the stores to the new primary with the state it replicated, and a URL that does not
 * fit (an unknown master, a server that is not a Sentinel, a cluster URL at a plain server) is refused
 * at start with one line.
 */
@Tag("slow")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LocalRedisServers.class)
class RedisSentinelStoresTest {

    /** Five per hour: nothing refills during a test, on any clock. */
    private static final Plan FIVE = Plan.of("five", BurstPolicy.of("burst", 5, 3_600));

    private static LocalRedisServers servers;
    private static int primary;
    private static int replica;
    private static int sentinel;

    @BeforeAll
    static void startSentinel() throws Exception {
        servers = LocalRedisServers.create();
        primary = servers.startServer();
        replica = servers.startReplica(primary);
        sentinel = servers.startSentinel("orders", primary, replica);
    }

    @AfterAll
    static void stopServers() {
        if (servers != null) {
            servers.close();
        }
    }

    private static String url(String master) {
        return "redis-sentinel://127.0.0.1:" + sentinel + "#" + master;
    }

    @Test
    void aFailOverMovesTheStoreToTheNewPrimaryWithTheStateItReplicated() throws Exception {
        String prefix = "sluice:s1:";
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        RedisLimiterStore store = RedisLimiterStore.open(url("orders"), RedisLimiterConfig.builder().keyPrefix(prefix)
                .scriptTime(time).localTime(time).decisionTimeout(Duration.ofSeconds(2)).build());
        RedisTestSupport.awaitUp(store.endpoint()); // the first decisions are Redis's, not the local fallback's
        try {
            List<Long> remaining = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                remaining.add(((Allowed) store.decide("sk_1", FIVE, Costs.ONE)).states().getFirst().remaining());
            }
            assertThat(remaining).containsExactly(4L, 3L, 2L);
            String burstKey = HashTags.taggedCredential(prefix, "sk_1") + "b5/3600r:burst";
            try (LocalRedisServers.Node p = LocalRedisServers.node(primary)) {
                assertThat(p.connection().sync().exists(burstKey)).isEqualTo(1L);
                assertThat(p.connection().sync().waitForReplication(1, 2_000)).isEqualTo(1L);
            }

            long failover = System.nanoTime();
            assertThat(servers.cli(sentinel, "sentinel", "failover", "orders")).contains("OK");
            await("the sentinel promotes the replica").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20))
                    .until(() -> servers.cli(sentinel, "sentinel", "get-master-addr-by-name", "orders")
                            .contains(Integer.toString(replica)));
            long promotedAt = System.nanoTime();
            // usage charges nothing: it reads r=2 once the store reads the new primary (the local share reads 5)
            RedisTestSupport.await("the store reads the new primary", Duration.ofSeconds(15), () -> {
                List<PolicyState> usage = store.usage("sk_1", FIVE);
                return store.endpoint().isUp() && usage.getFirst().remaining() == 2L;
            });
            long back = System.nanoTime();
            System.out.printf("sentinel fail-over: the sentinel named the new primary after %d ms, the store read it "
                    + "%d ms later%n", (promotedAt - failover) / 1_000_000, (back - promotedAt) / 1_000_000);

            Decision fourth = store.decide("sk_1", FIVE, Costs.ONE);
            Decision fifth = store.decide("sk_1", FIVE, Costs.ONE);
            Decision sixth = store.decide("sk_1", FIVE, Costs.ONE);
            assertThat(((Allowed) fourth).states().getFirst().remaining()).isEqualTo(1L);
            assertThat(((Allowed) fifth).states().getFirst().remaining()).isZero();
            assertThat(sixth).isInstanceOf(Denied.class);
            assertThat(store.isFallback(fourth)).isFalse();
            try (LocalRedisServers.Node promoted = LocalRedisServers.node(replica)) {
                assertThat(promoted.connection().sync().info("replication")).contains("role:master");
                assertThat(promoted.connection().sync().exists(burstKey)).isEqualTo(1L);
            }
        } finally {
            store.close();
        }
    }

    @Test
    void theSharedSdkBucketWorksThroughSentinel() {
        SharedLimitsConfig config = SharedLimitsConfig.builder().keyPrefix("sluice:s2:")
                .decisionTimeout(Duration.ofSeconds(2)).build();
        try (RedisClientLimits shared = RedisClientLimits.open(url("orders"), "api.example.com", config)) {
            RedisTestSupport.awaitUp(shared.endpoint());
            RedisTokenBucketStore bucket = shared.tokenBucket();
            bucket.configure(10, 10, System.nanoTime());
            for (int i = 0; i < 10; i++) {
                assertThat(bucket.tryAcquire(1, System.nanoTime())).as("token %d", i).isZero();
            }
            assertThat(bucket.tryAcquire(1, System.nanoTime())).isPositive();
            assertThat(bucket.stats().localAnswers()).isZero();
        }
    }

    @Test
    void aSentinelWithoutTheUrlsMasterIsRefusedAtStartInOneLine() {
        assertThatThrownBy(() -> RedisLimiterStore.open(url("payments"), RedisLimiterConfig.builder().build()))
                .isInstanceOf(RedisTopologyException.class)
                .hasMessage(url("payments") + ": the Sentinel at 127.0.0.1:" + sentinel
                        + " knows no master named \"payments\" (it knows [orders])")
                .hasNoCause();
    }

    @Test
    void aSentinelUrlAtAServerThatIsNoSentinelIsRefusedAtStartInOneLine() {
        String notSentinel = "redis-sentinel://127.0.0.1:" + replica + "#orders";
        assertThatThrownBy(() -> RedisLimiterStore.open(notSentinel, RedisLimiterConfig.builder().build()))
                .isInstanceOf(RedisTopologyException.class)
                .hasMessageStartingWith(notSentinel + ": the server at 127.0.0.1:" + replica + " is not a Sentinel (")
                .hasMessageNotContaining("\n");
    }

    @Test
    void aClusterUrlAtAPlainServerIsRefusedAtStartInOneLine() {
        String cluster = "redis-cluster://127.0.0.1:" + replica;
        assertThatThrownBy(() -> RedisLimiterStore.open(cluster, RedisLimiterConfig.builder().build()))
                .isInstanceOf(RedisTopologyException.class)
                .hasMessage(cluster + " reaches a Redis with cluster support disabled (cluster_enabled:0): write "
                        + "redis://127.0.0.1:" + replica + " for one server");
    }
}
