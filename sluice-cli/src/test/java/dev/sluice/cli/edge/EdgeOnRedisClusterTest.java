package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.CliRun;
import dev.sluice.cli.edge.EdgeClient.OkUpstream;
import dev.sluice.cli.edge.EdgeClient.Reply;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.LocalRedisServers;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.TimeSource;
import io.lettuce.core.cluster.SlotHash;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edge on a real 3-primary Redis Cluster that the class starts on loopback ports (once, shared):
 * keys on every node are limited exactly and answered 200 / 429, idempotency records replay across
 * nodes, and a URL that does not fit the deployment stops {@code sluice edge} at start with one line.
 */
@Tag("slow")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(LocalRedisServers.class)
class EdgeOnRedisClusterTest {

    private static final String PREFIX = "sluice:edge-cluster:";

    private static LocalRedisServers servers;
    private static List<Integer> ports;
    private static int plainPort;
    /** Slot range start → {end, port of the primary owning it}. */
    private static final TreeMap<Integer, int[]> SLOTS = new TreeMap<>();

    private final EdgeClient client = new EdgeClient();

    @BeforeAll
    static void startCluster() throws Exception {
        servers = LocalRedisServers.create();
        ports = servers.startCluster(3);
        plainPort = servers.startServer();
        try (LocalRedisServers.Node node = LocalRedisServers.node(ports.get(0))) {
            for (Object range : node.connection().sync().clusterSlots()) {
                List<?> r = (List<?>) range;
                SLOTS.put(((Long) r.get(0)).intValue(),
                        new int[] {((Long) r.get(1)).intValue(), ((Long) ((List<?>) r.get(2)).get(1)).intValue()});
            }
        }
    }

    @AfterAll
    static void stopCluster() {
        if (servers != null) {
            servers.close();
        }
    }

    private static int ownerOf(String redisKey) {
        int slot = SlotHash.getSlot(redisKey);
        Map.Entry<Integer, int[]> e = SLOTS.floorEntry(slot);
        assertThat(slot).isLessThanOrEqualTo(e.getValue()[0]);
        return e.getValue()[1];
    }

    @Test
    void keysOnEveryNodeAreLimitedExactlyAndRetriesReplayFromTheirNode(@TempDir Path dir) throws Exception {
        // one API key per node: the node owning the slot of its hash tag
        Map<Integer, String> keyOfNode = new LinkedHashMap<>();
        for (int i = 0; keyOfNode.size() < 3; i++) {
            String apiKey = "sk_node_" + i;
            keyOfNode.putIfAbsent(ownerOf(HashTags.taggedCredential(PREFIX, apiKey)), apiKey);
        }
        Map<Integer, String> roomyKeyOfNode = new LinkedHashMap<>();
        for (int i = 0; roomyKeyOfNode.size() < 3; i++) {
            String apiKey = "sk_roomy_" + i;
            roomyKeyOfNode.putIfAbsent(ownerOf(HashTags.taggedCredential(PREFIX + "idem:", apiKey)), apiKey);
        }
        StringBuilder keys = new StringBuilder();
        keyOfNode.values().forEach(k -> keys.append("  ").append(k).append(": three\n"));
        roomyKeyOfNode.values().forEach(k -> keys.append("  ").append(k).append(": roomy\n"));
        try (OkUpstream upstream = new OkUpstream()) {
            Path file = dir.resolve("edge.yaml");
            Files.writeString(file, """
                    listen: { host: 127.0.0.1, port: 0, io-threads: 1 }
                    admin: off
                    upstream: { url: %s }
                    store: { url: "redis-cluster://127.0.0.1:%d", decision-timeout: 2s, key-prefix: "%s" }
                    plans:
                      three:
                        policies:
                          - { name: burst, kind: burst, q: 3, w: 3600 }
                      roomy:
                        policies:
                          - { name: burst, kind: burst, q: 1000, w: 60 }
                    keys:
                    %sroutes:
                      - { method: POST, path: /v1/labels, idempotency-required: true }
                    """.formatted(upstream.url(), ports.get(1), PREFIX, keys));
            EdgeConfig config = EdgeConfig.load(file);
            List<AutoCloseable> toClose = new ArrayList<>();
            try {
                LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
                toClose.add(store);
                Optional<IdempotencyStore> records = EdgeStores.idempotency(config, store);
                records.ifPresent(toClose::add);
                EdgeOptions options = EdgeOptions.defaults().withStore(store);
                EdgeServer edge = EdgeServer.start(config, records.map(options::withIdempotencyStore).orElse(options));
                toClose.add(edge);
                RedisTestSupport.awaitUp(((RedisLimiterStore) store).endpoint());

                for (Map.Entry<Integer, String> node : keyOfNode.entrySet()) {
                    String apiKey = node.getValue();
                    List<Integer> statuses = new ArrayList<>();
                    List<Long> remaining = new ArrayList<>();
                    for (int i = 0; i < 5; i++) {
                        Reply r = client.send(edge.port(), "GET", "/v1/rates", apiKey);
                        statuses.add(r.status());
                        remaining.add(r.remaining("burst"));
                    }
                    assertThat(statuses).as(apiKey + " on node " + node.getKey()).containsExactly(200, 200, 200, 429, 429);
                    assertThat(remaining).containsExactly(2L, 1L, 0L, 0L, 0L);
                    String burstKey = HashTags.taggedCredential(PREFIX, apiKey) + "b3/3600r:burst";
                    try (LocalRedisServers.Node owner = LocalRedisServers.node(node.getKey())) {
                        assertThat(owner.connection().sync().exists(burstKey)).as(burstKey).isEqualTo(1L);
                    }
                }
                assertThat(((RedisLimiterStore) store).stats().fallbackDecisions()).isZero();

                // idempotency records on every node: each retry is replayed from its record, the upstream hit once
                int hitsBefore = upstream.hits();
                for (Map.Entry<Integer, String> node : roomyKeyOfNode.entrySet()) {
                    String apiKey = node.getValue();
                    String idem = "label-" + apiKey;
                    Reply first = client.send(edge.port(), "POST", "/v1/labels", apiKey, idem, "{\"to\":\"x\"}");
                    Reply retry = client.send(edge.port(), "POST", "/v1/labels", apiKey, idem, "{\"to\":\"x\"}");
                    assertThat(first.status()).as(apiKey).isEqualTo(200);
                    assertThat(first.replayed()).isEmpty();
                    assertThat(retry.status()).isEqualTo(200);
                    assertThat(retry.replayed()).as(apiKey + " on node " + node.getKey()).isEqualTo("true");
                    assertThat(retry.body()).isEqualTo(first.body());
                    String recordKey = HashTags.taggedCredential(PREFIX + "idem:", apiKey) + idem;
                    try (LocalRedisServers.Node owner = LocalRedisServers.node(node.getKey())) {
                        assertThat(owner.connection().sync().exists(recordKey)).as(recordKey).isEqualTo(1L);
                    }
                }
                assertThat(upstream.hits() - hitsBefore).isEqualTo(3);
            } finally {
                for (AutoCloseable c : toClose.reversed()) {
                    c.close();
                }
            }
        }
    }

    @Test
    void aOneServerUrlAtAClusterNodeStopsTheEdgeAtStartInOneLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, edgeYaml("redis://127.0.0.1:" + ports.get(0)));

        CliRun run = CliRun.of("edge", "--config", file.toString(), "--port", "0", "--no-watch");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines().toList()).containsExactly("sluice edge: " + file + ": store: redis://127.0.0.1:"
                + ports.get(0) + " reaches a Redis Cluster node (cluster_enabled:1), which answers MOVED for keys of "
                + "other nodes: write redis-cluster://127.0.0.1:" + ports.get(0));
    }

    @Test
    void aClusterUrlAtAServerWithoutClusterSupportStopsTheEdgeAtStartInOneLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, edgeYaml("redis-cluster://127.0.0.1:" + plainPort));

        CliRun run = CliRun.of("edge", "--config", file.toString(), "--port", "0", "--no-watch");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines().toList()).containsExactly("sluice edge: " + file + ": store: redis-cluster://127.0.0.1:"
                + plainPort + " reaches a Redis with cluster support disabled (cluster_enabled:0): write redis://127.0.0.1:"
                + plainPort + " for one server");
    }

    private static String edgeYaml(String url) {
        return """
                listen: { host: 127.0.0.1, port: 0 }
                admin: off
                upstream: { url: "http://127.0.0.1:9" }
                store: { url: "%s", key-prefix: "%s" }
                plans:
                  three:
                    policies:
                      - { name: burst, kind: burst, q: 3, w: 3600 }
                keys:
                  sk_1: three
                """.formatted(url, PREFIX);
    }
}
