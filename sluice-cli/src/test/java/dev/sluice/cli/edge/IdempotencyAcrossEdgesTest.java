package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.edge.EdgeClient.OkUpstream;
import dev.sluice.cli.edge.EdgeClient.Reply;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.TimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §3.11 across replicas: with {@code store: redis://…} the idempotency records live on the same
 * Redis, so a retry that lands on another edge is replayed instead of reaching the upstream twice.
 * Two edges in this JVM, each with its own stores as {@code sluice edge} builds them.
 */
@ExtendWith(RedisTestSupport.class)
class IdempotencyAcrossEdgesTest {

    private final String prefix = RedisTestSupport.newPrefix("idem-edges");
    private final EdgeClient client = new EdgeClient();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private OkUpstream upstream;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        RedisTestSupport.deletePrefix(prefix);
    }

    /** An edge on {@code yaml}, its limiter and idempotency stores built as {@code sluice edge} builds them. */
    private EdgeServer edge(Path file) {
        EdgeConfig config = EdgeConfig.load(file);
        LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
        toClose.add(store);
        Optional<IdempotencyStore> records = EdgeStores.idempotency(config, store);
        records.ifPresent(toClose::add);
        EdgeOptions options = EdgeOptions.defaults().withStore(store);
        EdgeServer edge = EdgeServer.start(config, records.map(options::withIdempotencyStore).orElse(options));
        toClose.add(edge);
        return edge;
    }

    private Path config(Path dir, String idempotency) throws Exception {
        upstream = upstream == null ? new OkUpstream() : upstream;
        Path file = dir.resolve("edge-" + UUID.randomUUID() + ".yaml");
        Files.writeString(file, """
                listen: { host: 127.0.0.1, port: 0, io-threads: 1 }
                admin: off
                upstream: { url: %s }
                store: { url: %s, replicas: 2, decision-timeout: 2s, key-prefix: "%s" }
                %s
                plans:
                  roomy:
                    policies:
                      - { name: burst, kind: burst, q: 1000, w: 60 }
                keys:
                  sk_1: roomy
                routes:
                  - { method: POST, path: /v1/labels, idempotency-required: true }
                """.formatted(upstream.url(), RedisTestSupport.URI, prefix, idempotency));
        return file;
    }

    @Test
    void aRetryOnAnotherEdgeIsReplayedFromTheSharedRecord(@TempDir Path dir) throws Exception {
        Path file = config(dir, "");
        EdgeServer a = edge(file);
        EdgeServer b = edge(file);
        String key = prefix + "label-1"; // unique per run: records outlive the test by their retention

        Reply first = client.send(a.port(), "POST", "/v1/labels", "sk_1", key, "{\"shipment\":\"shp_1\"}");
        Reply retry = client.send(b.port(), "POST", "/v1/labels", "sk_1", key, "{\"shipment\":\"shp_1\"}");

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.replayed()).isEmpty();
        assertThat(retry.status()).isEqualTo(200);
        assertThat(retry.replayed()).isEqualTo("true");
        assertThat(retry.body()).isEqualTo(first.body()).isEqualTo("{\"ok\":true,\"n\":1}");
        assertThat(upstream.hits()).isEqualTo(1); // the label was bought once
        // the record is under the configured key-prefix, and no key name shows the API key
        List<String> records = RedisTestSupport.admin().keys("*" + key);
        assertThat(records).hasSize(1);
        assertThat(records.get(0)).startsWith(prefix + "idem:{s").doesNotContain("sk_1");
        assertThat(RedisTestSupport.keys(prefix)).isNotEmpty().noneMatch(k -> k.contains("sk_1"));
    }

    @Test
    void withRecordsInMemoryTheOtherEdgeForwardsTheRetryAgain(@TempDir Path dir) throws Exception {
        Path file = config(dir, "idempotency: { store: memory }");
        EdgeServer a = edge(file);
        EdgeServer b = edge(file);
        String key = prefix + "label-2";

        client.send(a.port(), "POST", "/v1/labels", "sk_1", key, "{\"shipment\":\"shp_2\"}");
        Reply retry = client.send(b.port(), "POST", "/v1/labels", "sk_1", key, "{\"shipment\":\"shp_2\"}");

        assertThat(retry.replayed()).isEmpty();
        assertThat(upstream.hits()).isEqualTo(2); // what the shared records prevent
    }
}
