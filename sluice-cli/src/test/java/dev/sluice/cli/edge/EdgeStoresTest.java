package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.cli.CliRun;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.config.ConfigException;
import dev.sluice.limiter.idempotency.Claim;
import dev.sluice.limiter.idempotency.IdempotencyKey;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.RequestTarget;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.idempotency.RedisIdempotencyStore;
import dev.sluice.redis.limiter.LeasingLimiterStore;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.TimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The {@code store} section turned into stores, and {@code sluice edge} refusing a plan Redis cannot hold. */
@ExtendWith(RedisTestSupport.class)
class EdgeStoresTest {

    private static final String PLANS = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
            keys:
              sk_free: free
            """;

    private final String prefix = RedisTestSupport.newPrefix("edge-stores");

    @AfterEach
    void deleteKeys() {
        RedisTestSupport.deletePrefix(prefix);
    }

    @Test
    void memoryIsTheInMemoryStoreWithNoSharedIdempotencyStore() {
        EdgeConfig config = EdgeConfig.parse("m.yaml", PLANS);
        LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());

        assertThat(store).isInstanceOf(InMemoryLimiterStore.class);
        assertThat(EdgeStores.idempotency(config, store)).isEmpty();
    }

    @Test
    void idempotencyRecordsFollowTheStoreUnlessToldToStayInMemory() {
        String redis = "store: { url: " + RedisTestSupport.URI + ", key-prefix: \"" + prefix + "\" }\n";
        EdgeConfig shared = EdgeConfig.parse("r.yaml", redis + PLANS);
        EdgeConfig local = EdgeConfig.parse("r.yaml", redis + "idempotency: { store: memory }\n" + PLANS);

        try (LimiterStore store = EdgeStores.open(shared.store(), TimeSource.system())) {
            assertThat(EdgeStores.idempotency(shared, store)).get().isInstanceOf(RedisIdempotencyStore.class);
            assertThat(EdgeStores.idempotency(local, store)).isEmpty();
        }
        // records on Redis need the store section's Redis
        assertThatThrownBy(() -> EdgeConfig.parse("i.yaml", "idempotency:\n  store: redis\n" + PLANS))
                .isInstanceOf(ConfigException.class).hasMessage("i.yaml:2: idempotency.store: redis keeps the "
                        + "records on the store section's Redis: set store: redis://host:6379 too");
    }

    @Test
    void everyRedisSettingReachesTheStore() {
        StoreConfig.Redis section = new StoreConfig.Redis(RedisTestSupport.URI, 3, Duration.ofMillis(20),
                FailureMode.FAIL_CLOSED, Duration.ZERO, Optional.empty(), prefix, Duration.ofSeconds(2));

        RedisLimiterConfig c = EdgeStores.limiterConfig(section, TimeSource.system());

        assertThat(c.replicaCount()).isEqualTo(3);
        assertThat(c.decisionTimeout()).isEqualTo(Duration.ofMillis(20));
        assertThat(c.failureMode()).isEqualTo(FailureMode.FAIL_CLOSED);
        assertThat(c.denyCacheMaxAge()).isZero();
        assertThat(c.keyPrefix()).isEqualTo(prefix);
        assertThat(c.unavailableRetryAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(c.testMode()).isFalse(); // the server's TIME: one clock for every replica
    }

    @Test
    void leaseModeWrapsTheRedisStoreAndTheIdempotencyStoreSharesItsConnection() throws Exception {
        EdgeConfig config = EdgeConfig.parse("l.yaml", "store: { url: " + RedisTestSupport.URI + ", key-prefix: \""
                + prefix + "\", decision-timeout: 2s, lease: { units: 10, ttl: 1s } }\n" + PLANS);
        IdempotencyKey key = new IdempotencyKey("sk_free", "edge-stores-" + prefix.hashCode());

        try (LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
                IdempotencyStore records = EdgeStores.idempotency(config, store).orElseThrow()) {
            assertThat(store).isInstanceOf(LeasingLimiterStore.class);
            RedisTestSupport.awaitUp(((LeasingLimiterStore) store).redis().endpoint());
            Claim first = records.begin(key, new RequestTarget("POST", "/v1/labels"), Duration.ofSeconds(35));
            assertThat(first).isInstanceOf(Claim.Acquired.class);
            assertThat(records.abandon(key, ((Claim.Acquired) first).token())).isTrue();
        }
    }

    @Test
    void aPlanBeyondTheRedisStoresExactRangeStopsSluiceEdgeWithFileLineAndField(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, """
                store: { url: %s, key-prefix: "%s" }
                plans:
                  slow:
                    policies:
                      - { name: burst, kind: burst, q: 1201, w: 2000000 }
                keys:
                  sk_slow: slow
                """.formatted(RedisTestSupport.URI, prefix));
        assertThat(EdgeConfig.load(file).plans()).containsKey("slow"); // a valid plan, for the in-memory store

        CliRun run = CliRun.of("edge", "--config", file.toString(), "--port", "0", "--admin-port", "0", "--no-watch");

        assertThat(run.exitCode()).isEqualTo(2);
        // 2,000,000 s · 10^6 µs · k = 1201 ticks per µs > 2^51: the script's integer arithmetic would not be exact
        assertThat(run.err()).contains(file + ":3: plans.slow: policy burst (q=1201, w=2000000)")
                .contains("exceeds the Redis store's exact range of 2^51");
    }

    @Test
    void theStartUpProbeReportsTheRoundTripOrWhyRedisDidNotAnswer() throws Exception {
        StoreConfig.Redis up = new StoreConfig.Redis(RedisTestSupport.URI, 3, Duration.ofMillis(50),
                FailureMode.FAIL_OPEN_DEGRADED, Duration.ofSeconds(1), Optional.empty(), prefix, Duration.ofSeconds(1));
        try (LimiterStore store = EdgeStores.open(up, TimeSource.system())) {
            EdgeStores.Probe probe = EdgeStores.probe(up, store, TimeSource.system(), Duration.ofSeconds(5));
            assertThat(probe.answered()).isTrue();
            assertThat(probe.line()).matches("store " + java.util.regex.Pattern.quote(RedisTestSupport.URI)
                    + " answered PONG in \\d+\\.\\d ms");
        }
        StoreConfig.Redis down = new StoreConfig.Redis("redis://127.0.0.1:" + closedPort(), 3, Duration.ofMillis(50),
                FailureMode.FAIL_OPEN_DEGRADED, Duration.ofSeconds(1), Optional.empty(), prefix, Duration.ofSeconds(1));
        try (LimiterStore store = EdgeStores.open(down, TimeSource.system())) {
            EdgeStores.Probe probe = EdgeStores.probe(down, store, TimeSource.system(), Duration.ofSeconds(1));
            assertThat(probe.answered()).isFalse();
            assertThat(probe.line()).startsWith("store " + down.url() + " did not answer PING (")
                    .endsWith("); starting; each replica decides locally at q/3 until it answers");
        }
        assertThat(EdgeStores.probe(StoreConfig.MEMORY, new InMemoryLimiterStore(TimeSource.system()),
                TimeSource.system(), Duration.ofSeconds(1))).isEqualTo(new EdgeStores.Probe(true, "store memory"));
    }

    @Test
    void withRequireAtStartSluiceEdgeRefusesToStartWhenRedisIsDownInOneLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        String url = "redis://127.0.0.1:" + closedPort();
        Files.writeString(file, "store: { url: " + url + ", require-at-start: true, key-prefix: \"" + prefix + "\" }\n"
                + PLANS);

        CliRun run = CliRun.of("edge", "--config", file.toString(), "--port", "0", "--admin-port", "0", "--no-watch");

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err().strip().lines()).hasSize(1).first().asString()
                .startsWith("sluice edge: " + file + ": store " + url + " did not answer PING (")
                .endsWith("); store.require-at-start is true: not starting");
    }

    @Test
    void aRedisUrlTheClientWouldRefuseStopsSluiceEdgeWithFileAndLine(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, "store:\n  url: redis://127.0.0.1:6379/abc\n" + PLANS);

        CliRun run = CliRun.of("edge", "--config", file.toString(), "--port", "0", "--admin-port", "0", "--no-watch");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains(file + ":2: store.url: the path is the database number")
                .doesNotContain("Exception");
    }

    @Test
    void theConcurrencyLeaseReachesTheStore() {
        EdgeConfig config = EdgeConfig.parse("c.yaml", "store: { url: " + RedisTestSupport.URI
                + ", concurrency-lease: 2m }\n" + PLANS);

        RedisLimiterConfig c = EdgeStores.limiterConfig((StoreConfig.Redis) config.store(), TimeSource.system());

        assertThat(c.concurrencyLease()).isEqualTo(Duration.ofMinutes(2));
        assertThat(EdgeStores.limiterConfig(StoreConfig.Redis.of(RedisTestSupport.URI), TimeSource.system())
                .concurrencyLease()).isEqualTo(Duration.ofMinutes(5));
    }

    /** A loopback port nobody listens on. */
    private static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void theReadmesTwoLinesStartAnEdgeOnRedis(@TempDir Path dir) throws Exception {
        // sluice-edge/README.md "Across replicas": the store section in its two-line form
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, "store:\n  url: " + RedisTestSupport.URI + "\n  replicas: 3\n" + PLANS);

        StoreConfig store = EdgeConfig.load(file).store();

        assertThat(store).isEqualTo(new StoreConfig.Redis(RedisTestSupport.URI, 3, Duration.ofMillis(50),
                FailureMode.FAIL_OPEN_DEGRADED, Duration.ofSeconds(1), Optional.empty(), "sluice:lim:",
                Duration.ofSeconds(1)));
        try (LimiterStore s = EdgeStores.open(store, TimeSource.system())) {
            assertThat(s).isInstanceOf(RedisLimiterStore.class);
            assertThat(((RedisLimiterStore) s).config().replicaCount()).isEqualTo(3);
        }
    }

    @Test
    void decisionsRedisMadeAndRedisUpAreOnTheEdgesMetrics() throws Exception {
        // SPEC §3.13, §3.14; Redis down (fallback, fail-closed) is RedisStoreMetersTest
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort(); // the upstream: 502s, after a decision each
        }
        EdgeConfig config = EdgeConfig.parse("r.yaml", "admin: 127.0.0.1:0\nstore: { url: " + RedisTestSupport.URI
                + ", key-prefix: \"" + prefix + "\", decision-timeout: 2s }\n" + PLANS).withListenPort(0)
                .withUpstreamUrl(java.net.URI.create("http://127.0.0.1:" + closed));
        try (LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
                dev.sluice.edge.EdgeServer edge = dev.sluice.edge.EdgeServer.start(config,
                        dev.sluice.edge.EdgeOptions.defaults().withStore(store)
                                .withMeterBinders(RedisStoreMeters.of(store).stream().toList()));
                java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            RedisTestSupport.awaitUp(((RedisLimiterStore) store).endpoint());
            for (int i = 0; i < 3; i++) {
                http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + edge.port()
                        + "/v1/quotes")).header("Authorization", "Bearer sk_free").build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
            }
            String metrics = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:"
                    + edge.adminPort() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();

            assertThat(metrics).contains("sluice_edge_store_decisions_total{answered_by=\"redis\"} 3.0",
                    "sluice_edge_store_decisions_total{answered_by=\"fallback\"} 0.0",
                    "sluice_edge_store_redis_up 1.0");
        }
    }
}
