package dev.sluice.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.time.TimeSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Closing an edge that reads its keys from PostgreSQL ends every thread the edge and its key store started: the
 * admin API's, the key lookups', the connection pool's and the notification listener's, and no thread that
 * would keep a JVM alive (non-daemon) is left behind.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyStoreEdgeCloseTest {

    private TestDatabase db;
    private KeyStores keys;
    private EdgeServer edge;

    @BeforeEach
    void open() {
        db = TestDatabase.schema();
    }

    @AfterEach
    void close() {
        if (edge != null) {
            edge.close();
        }
        if (keys != null) {
            keys.close(); // idempotent: the edge closed it already
        }
        db.close();
    }

    @Test
    void closingTheEdgeEndsTheAdminApiAndKeyStoreThreads() throws Exception {
        Set<Long> before = Thread.getAllStackTraces().keySet().stream().map(Thread::threadId)
                .collect(Collectors.toSet());
        keys = KeyStores.open(db.config(), KeyIds.DEFAULT, TimeSource.system());
        await("listener up").atMost(Duration.ofSeconds(10)).until(keys::listening);
        edge = EdgeServer.start(EdgeConfig.parse("edge.yaml", """
                listen: 127.0.0.1:0
                admin: 127.0.0.1:0
                upstream: { url: "http://127.0.0.1:9" }
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 10, w: 1 }
                routes:
                  - { method: GET, path: /v1/usage, handler: usage }
                """), EdgeOptions.defaults().withKeySource(keys.source())
                .withKeyAdministration(keys.administration()));
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            // the admin API's threads, a lookup thread and the pool's connections all at work
            HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + edge.adminPort() + "/admin/v1/keys")).POST(HttpRequest.BodyPublishers.ofString(
                            "{\"plan\": \"free\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).isEqualTo(201);
            String key = created.body().replaceAll(".*\"key\":\"([^\"]+)\".*", "$1");
            HttpResponse<String> usage = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + edge.port() + "/v1/usage")).header("Authorization", "Bearer " + key).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(usage.statusCode()).isEqualTo(200);
        }
        assertThat(names(keyStoreOrAdminThreads())).contains("sluice-admin-api", "sluice-keys-notifications",
                "sluice-keys-lookup-1");

        edge.close();
        edge = null;

        await("key store and admin threads gone").atMost(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(names(keyStoreOrAdminThreads())).isEmpty());
        await("no non-daemon thread left").atMost(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(names(Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.isAlive() && !t.isDaemon() && !before.contains(t.threadId()))
                        .filter(t -> !t.getName().startsWith("awaitility")).toList())) // the poller itself
                        .isEmpty());
    }

    private static List<Thread> keyStoreOrAdminThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> t.getName().startsWith("sluice-keys") || t.getName().startsWith("sluice-admin"))
                .toList();
    }

    private static List<String> names(List<Thread> threads) {
        return threads.stream().map(Thread::getName).sorted().toList();
    }
}
