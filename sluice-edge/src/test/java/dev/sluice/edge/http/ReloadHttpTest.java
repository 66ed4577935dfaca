package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.ConfigException;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** SPEC §3.13a: reload without restart; a bad file is refused and the old one kept; per-key overrides. */
@ExtendWith(NoLeaks.class)
class ReloadHttpTest {

    private static final String KEY = "sk_test_free_1";

    private static String config(long burstQ) {
        return """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: %d, w: 2 }
                      - { name: daily, kind: quota, q: 10000, window: daily }
                keys:
                  sk_test_free_1: free
                  sk_test_big_1: free
                key-overrides:
                  sk_test_big_1: { daily: { q: 50000 } }
                """.formatted(burstQ);
    }

    private static final String BROKEN = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: -5, w: 2 }
            keys:
              sk_test_free_1: free
            routes:
              - { method: GET, path: /v1/x, cost: -1 }
            """;

    @Test
    void aBrokenFileIsRefusedWithItsErrorsAndTheRunningConfigurationStays(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, config(20));
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(EdgeConfig.load(file), up.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
            assertThat(edge.get("/v1/x", KEY).headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
            Files.writeString(file, BROKEN);
            assertThatThrownBy(() -> edge.server.reloadFromSource())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(file + ":4: plans.free.policies[0].q: must be > 0, was -5")
                    .hasMessageContaining(file + ":8: routes[0].cost: must be >= 0, was -1");
            HttpResponse<String> after = edge.get("/v1/x", KEY);
            assertThat(after.statusCode()).isEqualTo(200);
            assertThat(after.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
            // limiter state went on undisturbed: the second request of the same instant
            assertThat(after.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"burst\";r=18;");
        }
    }

    @Test
    void aChangedFileIsAppliedByTheWatcherAndSpentUnitsAreKept(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, config(20));
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(EdgeConfig.load(file), up.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z"), EdgeOptions.defaults().withWatchConfig(true))) {
            edge.get("/v1/x", KEY);
            EdgeConfig before = edge.server.config();
            Files.writeString(file, config(40));
            await("the watcher reloads the file").atMost(Duration.ofSeconds(10)).until(() -> edge.server.config() != before);
            HttpResponse<String> r = edge.get("/v1/x", KEY);
            assertThat(r.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"burst\";q=40;w=2, \"daily\";q=10000;w=86400");
            assertThat(r.headers().firstValue("RateLimit").orElseThrow()).contains("\"daily\";r=9998;");
        }
    }

    @Test
    void aPerKeyOverrideChangesOnlyThatKeysPolicy(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, config(20));
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(EdgeConfig.load(file), up.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
            assertThat(edge.get("/v1/x", "sk_test_big_1").headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"burst\";q=20;w=2, \"daily\";q=50000;w=86400");
            assertThat(edge.get("/v1/usage", "sk_test_big_1").body()).startsWith("{\"plan\":\"free\"");
            assertThat(edge.get("/v1/x", KEY).headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
        }
    }
}
