package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With {@code store: redis}, the decisions Redis did not make are on the edge's Prometheus endpoint (SPEC §3.13,
 * §3.14), with Redis's up/down state: here Redis is down (nothing listens on its port), so fail-open routes
 * are answered by the local fallback at {@code q/N} and a fail-closed route by 503, each counted. The store
 * with Redis up is in {@link EdgeStoresTest}.
 */
class RedisStoreMetersTest {

    private HttpServer upstream;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeEach
    void startUpstream() throws IOException {
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/", ex -> {
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        upstream.start();
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) {
            c.close();
        }
        upstream.stop(0);
        http.close();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private int get(EdgeServer edge, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + path))
                .header("Authorization", "Bearer sk_free").timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private String metrics(EdgeServer edge) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void fallbackAndFailClosedDecisionsAndRedisDownAreOnTheEdgesMetrics() throws Exception {
        EdgeConfig config = EdgeConfig.parse("edge.yaml", """
                admin: 127.0.0.1:0
                store: { url: "redis://127.0.0.1:%d", replicas: 2, decision-timeout: 50ms }
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 20, w: 2 }
                keys: { sk_free: free }
                routes:
                  - { method: GET, path: /v1/strict, failure-mode: fail-closed }
                  - { method: GET, path: /v1/** }
                """.formatted(closedPort())).withListenPort(0)
                .withUpstreamUrl(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
        LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
        open.add(store);
        EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults().withStore(store)
                .withMeterBinders(RedisStoreMeters.of(store).stream().toList()));
        open.add(edge);

        for (int i = 0; i < 3; i++) {
            assertThat(get(edge, "/v1/quotes")).isEqualTo(204); // fail-open-degraded: the local q/2
        }
        assertThat(get(edge, "/v1/strict")).isEqualTo(503); // fail-closed

        String m = metrics(edge);
        assertThat(m).contains("sluice_edge_store_decisions_total{answered_by=\"fallback\"} 3.0",
                "sluice_edge_store_decisions_total{answered_by=\"unavailable\"} 1.0",
                "sluice_edge_store_decisions_total{answered_by=\"redis\"} 0.0",
                "sluice_edge_store_redis_up 0.0");
    }

    @Test
    void anInMemoryStoreHasNoStoreMeters() {
        assertThat(RedisStoreMeters.of(new dev.sluice.limiter.memory.InMemoryLimiterStore(TimeSource.system())))
                .isEmpty();
    }
}
