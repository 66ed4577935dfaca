package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.cli.CliRun;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.limiter.config.ConfigException;
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
        assertThat(run.err()).contains(file + ":4: plans.slow: policy burst (q=1201, w=2000000)")
                .contains("exceeds the Redis store's exact range of 2^51");
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
}
