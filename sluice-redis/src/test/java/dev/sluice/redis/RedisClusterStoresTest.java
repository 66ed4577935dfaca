package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.idempotency.Claim;
import dev.sluice.limiter.idempotency.IdempotencyKey;
import dev.sluice.limiter.idempotency.RecordedResponse;
import dev.sluice.limiter.idempotency.RequestFingerprint;
import dev.sluice.limiter.idempotency.RequestTarget;
import dev.sluice.redis.client.RedisClientLimits;
import dev.sluice.redis.client.RedisTokenBucketStore;
import dev.sluice.redis.client.SharedLimitsConfig;
import dev.sluice.redis.idempotency.RedisIdempotencyConfig;
import dev.sluice.redis.idempotency.RedisIdempotencyStore;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.ManualTimeSource;
import io.lettuce.core.cluster.SlotHash;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every Redis store on a real 3-primary Redis Cluster that the class starts on loopback ports
 * ({@link LocalRedisServers}; once, shared by the tests): keys spread over the three nodes, each script
 * call runs on the node that owns its slot, decisions are exact on every node, {@code NOSCRIPT} is
 * answered by a load on the node that said it, and a URL that does not fit the deployment is refused at
 * start with one line.
 */
@Tag("slow")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LocalRedisServers.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisClusterStoresTest {

    /** Five per hour: nothing refills during a test, on any clock. */
    private static final Plan FIVE = Plan.of("five", BurstPolicy.of("burst", 5, 3_600), QuotaPolicy.daily("daily", 1_000));

    /** Large enough that the local share denies nothing: every answer is about who made it. */
    private static final Plan ROOMY = Plan.of("roomy", BurstPolicy.of("burst", 10_000_000, 3_600));

    private static LocalRedisServers servers;
    private static List<Integer> ports;
    private static String clusterUrl;
    /** Slot → port of the primary that owns it. */
    private static final TreeMap<Integer, int[]> SLOT_RANGES = new TreeMap<>();
    private static RedisEndpoint endpoint;

    @BeforeAll
    static void startCluster() throws Exception {
        servers = LocalRedisServers.create();
        ports = servers.startCluster(3);
        clusterUrl = "redis-cluster://127.0.0.1:" + ports.get(0) + ",127.0.0.1:" + ports.get(1);
        try (LocalRedisServers.Node node = LocalRedisServers.node(ports.get(0))) {
            for (Object range : node.connection().sync().clusterSlots()) {
                List<?> r = (List<?>) range;
                int start = ((Long) r.get(0)).intValue();
                int end = ((Long) r.get(1)).intValue();
                int port = ((Long) ((List<?>) r.get(2)).get(1)).intValue();
                SLOT_RANGES.put(start, new int[] {end, port});
            }
        }
        endpoint = RedisEndpoint.connect(clusterUrl);
        endpoint.awaitFirstAttempt(Duration.ofSeconds(10));
        RedisTestSupport.awaitUp(endpoint);
    }

    @AfterAll
    static void stopCluster() {
        try {
            if (endpoint != null) {
                endpoint.close();
            }
        } finally {
            if (servers != null) {
                servers.close();
            }
        }
    }

    /** The port of the primary that owns {@code slot}. */
    private static int ownerOf(int slot) {
        Map.Entry<Integer, int[]> e = SLOT_RANGES.floorEntry(slot);
        assertThat(e).isNotNull();
        assertThat(slot).isLessThanOrEqualTo(e.getValue()[0]);
        return e.getValue()[1];
    }

    /** API keys, two per node (in node order), whose limiter keys hash to that node. */
    private static Map<Integer, List<String>> apiKeysPerNode(String prefix, int perNode) {
        Map<Integer, List<String>> byPort = new LinkedHashMap<>();
        ports.forEach(p -> byPort.put(p, new ArrayList<>()));
        for (int i = 0; byPort.values().stream().anyMatch(l -> l.size() < perNode); i++) {
            String apiKey = "sk_live_" + i;
            List<String> mine = byPort.get(ownerOf(SlotHash.getSlot(HashTags.taggedCredential(prefix, apiKey))));
            if (mine.size() < perNode) {
                mine.add(apiKey);
            }
        }
        return byPort;
    }

    @Test
    void theLimitHoldsExactlyPerKeyOnEveryNodeAndEachKeyLivesOnTheNodeOwningItsSlot() throws Exception {
        String prefix = "sluice:c1:";
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        RedisLimiterStore store = new RedisLimiterStore(endpoint, RedisLimiterConfig.builder().keyPrefix(prefix)
                .scriptTime(time).localTime(time).decisionTimeout(Duration.ofSeconds(5)).build());
        Map<Integer, List<String>> perNode = apiKeysPerNode(prefix, 2);

        for (Map.Entry<Integer, List<String>> node : perNode.entrySet()) {
            for (String apiKey : node.getValue()) {
                List<Long> remaining = new ArrayList<>();
                int denied = 0;
                for (int i = 0; i < 8; i++) {
                    Decision d = store.decide(apiKey, FIVE, Costs.ONE);
                    if (d instanceof Allowed a) {
                        remaining.add(a.states().getFirst().remaining());
                    } else {
                        assertThat(d).isInstanceOf(Denied.class);
                        denied++;
                    }
                }
                assertThat(remaining).as(apiKey + " on node " + node.getKey()).containsExactly(4L, 3L, 2L, 1L, 0L);
                assertThat(denied).isEqualTo(3);
                // the server agrees where the keys are: its slot, owned by that node, which holds them
                String burstKey = prefix + "{" + HashTags.credential(apiKey) + "}:b5/3600r:burst";
                try (LocalRedisServers.Node owner = LocalRedisServers.node(node.getKey())) {
                    assertThat(owner.connection().sync().clusterKeyslot(burstKey)).isEqualTo(SlotHash.getSlot(burstKey));
                    assertThat(owner.connection().sync().exists(burstKey)).as(burstKey).isEqualTo(1L);
                    assertThat(owner.connection().sync().ttl(burstKey)).isPositive();
                }
            }
        }
        // per key: 5 admissions and the first denial; the next denials come from the deny cache
        assertThat(store.stats().redisDecisions()).isEqualTo(3 * 2 * 6);
        assertThat(store.stats().fallbackDecisions()).isZero();
        assertThat(store.usage(perNode.get(ports.get(2)).get(0), FIVE)).extracting(PolicyState::remaining)
                .containsExactly(0L, 995L);
    }

    @Test
    void aNodeThatLostTheScriptLoadsItAgainOnItsOwnAndOnlyThere() throws Exception {
        String prefix = "sluice:c2:";
        RedisLimiterStore store = new RedisLimiterStore(endpoint, RedisLimiterConfig.builder().keyPrefix(prefix)
                .decisionTimeout(Duration.ofSeconds(5)).build());
        Map<Integer, List<String>> perNode = apiKeysPerNode(prefix, 1);
        for (List<String> keys : perNode.values()) {
            assertThat(store.decide(keys.get(0), FIVE, Costs.ONE)).isInstanceOf(Allowed.class); // loaded everywhere
        }
        long loadsBefore = store.stats().scriptLoads();
        int flushed = ports.get(1);
        String sha;
        try (LocalRedisServers.Node node = LocalRedisServers.node(flushed)) {
            sha = store.decisionCommand("x", FIVE, Costs.ONE).get(1);
            assertThat(node.connection().sync().scriptExists(sha)).containsExactly(true);
            node.connection().sync().scriptFlush();
        }

        for (List<String> keys : perNode.values()) {
            assertThat(store.decide(keys.get(0), FIVE, Costs.ONE)).isInstanceOf(Allowed.class);
        }

        assertThat(store.stats().scriptLoads() - loadsBefore).as("one load, on the flushed node").isEqualTo(1);
        assertThat(store.stats().fallbackDecisions()).isZero();
        for (int port : ports) {
            try (LocalRedisServers.Node node = LocalRedisServers.node(port)) {
                assertThat(node.connection().sync().scriptExists(sha)).as("node " + port).containsExactly(true);
            }
        }
    }

    @Test
    void idempotencyRecordsWorkOnEveryNode() {
        String prefix = "sluice:c3:";
        RedisIdempotencyStore a = new RedisIdempotencyStore(endpoint, RedisIdempotencyConfig.builder()
                .keyPrefix(prefix).operationTimeout(Duration.ofSeconds(5)).build());
        RequestTarget post = new RequestTarget("POST", "/v1/labels");
        RequestFingerprint body = new RequestFingerprint(post, RequestFingerprint.EMPTY_BODY_SHA256);
        Map<Integer, List<String>> perNode = apiKeysPerNode(prefix, 1);
        for (Map.Entry<Integer, List<String>> node : perNode.entrySet()) {
            IdempotencyKey key = new IdempotencyKey(node.getValue().get(0), "5f1c2b7e-" + node.getKey());
            RecordedResponse created = new RecordedResponse.Replayable(201, List.of(),
                    ("{\"node\":" + node.getKey() + "}").getBytes(StandardCharsets.UTF_8));

            Claim first = a.begin(key, post, Duration.ofSeconds(35));
            assertThat(first).isInstanceOf(Claim.Acquired.class);
            assertThat(a.begin(key, post, Duration.ofSeconds(35))).isEqualTo(new Claim.InFlight(post));
            assertThat(a.complete(key, ((Claim.Acquired) first).token(), body, created, Duration.ofHours(24))).isTrue();
            assertThat(a.begin(key, post, Duration.ofSeconds(35))).isEqualTo(new Claim.Completed(body, created));

            String recordKey = HashTags.taggedCredential(prefix, key.apiKey()) + key.value();
            try (LocalRedisServers.Node owner = LocalRedisServers.node(node.getKey())) {
                assertThat(owner.connection().sync().exists(recordKey)).as(recordKey).isEqualTo(1L);
            }
        }
        assertThat(a.stats().failures()).isZero();
    }

    @Test
    void sharedSdkBucketsOfLimitsOnDifferentNodesAreEachOne() {
        SharedLimitsConfig config = SharedLimitsConfig.builder().keyPrefix("sluice:c4:")
                .decisionTimeout(Duration.ofSeconds(5)).build();
        Map<Integer, String> limitPerNode = new HashMap<>();
        for (int i = 0; limitPerNode.size() < 3; i++) {
            String limit = "api-" + i + ".example.com";
            limitPerNode.putIfAbsent(ownerOf(SlotHash.getSlot("sluice:c4:{" + limit + "}:bucket")), limit);
        }
        try (RedisClientLimits other = RedisClientLimits.open(clusterUrl, "unused", config)) {
            for (String limit : limitPerNode.values()) {
                RedisTokenBucketStore a = RedisClientLimits.over(endpoint, limit, config).tokenBucket();
                RedisTokenBucketStore b = RedisClientLimits.over(other.endpoint(), limit, config).tokenBucket();
                a.configure(10, 10, System.nanoTime());
                b.configure(10, 10, System.nanoTime());
                for (int i = 0; i < 10; i++) {
                    assertThat((i % 2 == 0 ? a : b).tryAcquire(1, System.nanoTime())).as(limit + " token " + i).isZero();
                }
                assertThat(b.tryAcquire(1, System.nanoTime())).as(limit + ": the shared 10 are spent").isPositive();
                assertThat(a.stats().localAnswers() + b.stats().localAnswers()).isZero();
            }
        }
    }

    @Test
    void aOneServerUrlAtAClusterNodeIsRefusedAtStartInOneLine() {
        String url = "redis://127.0.0.1:" + ports.get(0);
        assertThatThrownBy(() -> RedisLimiterStore.open(url, RedisLimiterConfig.builder().build()))
                .isInstanceOf(RedisTopologyException.class)
                .hasMessage(url + " reaches a Redis Cluster node (cluster_enabled:1), which answers MOVED for keys of "
                        + "other nodes: write redis-cluster://127.0.0.1:" + ports.get(0))
                .hasNoCause()
                .satisfies(e -> assertThat(e.getStackTrace()).isEmpty());
        assertThatThrownBy(() -> RedisIdempotencyStore.open(url, RedisIdempotencyConfig.builder().build()))
                .isInstanceOf(RedisTopologyException.class);
        assertThatThrownBy(() -> RedisClientLimits.open(url, "api", SharedLimitsConfig.builder().build()))
                .isInstanceOf(RedisTopologyException.class);
    }

    @Test
    void aKeyPrefixWithABraceIsRefusedOnACluster() {
        assertThatThrownBy(() -> new RedisLimiterStore(endpoint, RedisLimiterConfig.builder().keyPrefix("{app}:").build()))
                .isInstanceOf(RedisTopologyException.class)
                .hasMessageContaining("keyPrefix \"{app}:\" has a brace");
    }

    /**
     * A store wrapped around a plain connection to one node (as a {@code redis://} URL would be, were it not
     * refused at start): keys of the other nodes are answered {@code MOVED}. Redis is then reported down, the
     * decisions are answered locally, and the log gets one line per 10 s, not one per call.
     */
    @Test
    void errorRepliesMarkRedisDownAndAreLoggedOnceNotPerCall() throws Exception {
        String prefix = "sluice:c5:";
        Map<Integer, List<String>> perNode = apiKeysPerNode(prefix, 5);
        PrintStream stderr = System.err;
        long[] decisions = {0};
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (LocalRedisServers.Node node = LocalRedisServers.node(ports.get(0))) {
            RedisEndpoint wrapped = RedisEndpoint.wrap(node.connection(), RedisEndpointConfig.of("redis://unused"));
            RedisLimiterStore store = new RedisLimiterStore(wrapped, RedisLimiterConfig.builder().keyPrefix(prefix)
                    .decisionTimeout(Duration.ofSeconds(5)).denyCacheMaxAge(Duration.ZERO).build());
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1_500);
                while (System.nanoTime() - deadline < 0) {
                    for (List<String> keys : List.of(perNode.get(ports.get(1)), perNode.get(ports.get(2)))) {
                        for (String k : keys) {
                            assertThat(store.decide(k, ROOMY, Costs.ONE)).isInstanceOf(Allowed.class);
                            decisions[0]++;
                        }
                    }
                }
                assertThat(decisions[0]).isGreaterThan(100);
                assertThat(wrapped.isUp()).as("an endpoint answering MOVED is not up").isFalse();
                // a hold that doubles: 250 ms, 500 ms, 1 s ... so at most a few falls in 1.5 s
                assertThat(wrapped.stats().downTransitions()).isBetween(1L, 4L);
                assertThat(store.stats().errors()).isGreaterThanOrEqualTo(3);
                assertThat(store.stats().fallbackDecisions()).isGreaterThan(decisions[0] - 20L);
            } finally {
                System.setErr(stderr);
                store.close();
                wrapped.close();
            }
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().toList();
        List<String> errorLines = lines.stream().filter(l -> l.contains("with an error since the last such line"))
                .toList();
        assertThat(errorLines).hasSize(1);
        assertThat(errorLines.getFirst()).contains("WARN").contains("MOVED")
                .contains("a Redis Cluster node reached as one server: use a redis-cluster:// URL");
        assertThat(lines).noneMatch(l -> l.startsWith("\tat ") || l.contains("ERROR"));
        assertThat(lines.size()).as(String.join("\n", lines)).isLessThan(12);
        System.out.println("MOVED for " + decisions[0] + " decisions in 1.5 s logged: " + errorLines.getFirst());
    }

    /**
     * A primary that crashes: decisions for its slots fail, Redis is marked down and every decision is
     * answered locally; when it is back and has rejoined, the probe ({@code cluster_state:ok} from every
     * primary) marks Redis up and decisions are Redis's again, on every node. Last: it takes a node away from the shared cluster.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void aCrashedPrimaryMarksRedisDownAndItsReturnUp() throws Exception {
        String prefix = "sluice:c6:";
        RedisEndpoint own = RedisEndpoint.connect(clusterUrl);
        try {
            own.awaitFirstAttempt(Duration.ofSeconds(10));
            RedisTestSupport.awaitUp(own);
            RedisLimiterStore store = new RedisLimiterStore(own, RedisLimiterConfig.builder().keyPrefix(prefix)
                    .decisionTimeout(Duration.ofMillis(500)).build());
            Map<Integer, List<String>> perNode = apiKeysPerNode(prefix, 1);
            int crashed = ports.get(2);
            String onCrashed = perNode.get(crashed).get(0);

            servers.stop(crashed);
            long stopped = System.nanoTime();
            RedisTestSupport.await("redis marked down", Duration.ofSeconds(10), () -> {
                store.decide(onCrashed, ROOMY, Costs.ONE);
                return !own.isUp();
            });
            long down = System.nanoTime();
            Decision meanwhile = store.decide(perNode.get(ports.get(0)).get(0), ROOMY, Costs.ONE);
            assertThat(meanwhile).isInstanceOf(Allowed.class); // answered locally, at once
            long redisBefore = store.stats().redisDecisions();

            servers.restart(crashed);
            long restarted = System.nanoTime();
            RedisTestSupport.await("redis up again", Duration.ofSeconds(15), own::isUp);
            long up = System.nanoTime();
            for (List<String> keys : perNode.values()) {
                assertThat(store.decide(keys.get(0), ROOMY, Costs.ONE)).isInstanceOf(Allowed.class);
            }
            assertThat(store.stats().redisDecisions() - redisBefore).as("decided by Redis on every node").isEqualTo(3);
            System.out.printf("cluster node crash: marked down %d ms after the kill; up %d ms after the restart%n",
                    (down - stopped) / 1_000_000, (up - restarted) / 1_000_000);
        } finally {
            own.close();
        }
    }
}
