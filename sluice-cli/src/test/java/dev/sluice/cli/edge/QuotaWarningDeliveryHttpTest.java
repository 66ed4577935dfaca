package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.webhook.StandardWebhooks;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.decision.KeyIds;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §3.8 end to end: a key crosses 80 % of its daily quota through the edge, and a webhook receiver on
 * loopback gets one signed {@code quota.warning} for that window through the delivery worker, also when
 * the edge restarts and the key crosses again.
 */
@Tag("slow")
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class QuotaWarningDeliveryHttpTest {

    private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    private static final String KEY = "sk_test_merchant_1";
    private static final ObjectMapper JSON = new ObjectMapper();

    record Received(String id, String timestamp, String signature, String body) {
    }

    @TempDir
    Path dir;

    private HttpServer receiver;
    private HttpServer upstream;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void servers() throws IOException {
        receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hooks", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            received.add(new Received(ex.getRequestHeaders().getFirst("webhook-id"),
                    ex.getRequestHeaders().getFirst("webhook-timestamp"),
                    ex.getRequestHeaders().getFirst("webhook-signature"), body));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        receiver.start();
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/", ex -> {
            ex.sendResponseHeaders(200, 2);
            ex.getResponseBody().write("ok".getBytes());
            ex.close();
        });
        upstream.start();
    }

    @AfterEach
    void stop() {
        receiver.stop(0);
        upstream.stop(0);
    }

    @Test
    void aKeyCrossingEightyPercentOfItsDayGetsExactlyOneSignedWarningAcrossARestart() throws Exception {
        String location = "sqlite:" + dir.resolve("delivery.db");
        JdbcDeliveryStore store = JdbcDeliveryStore.open(location);
        try (Delivery delivery = Delivery.builder(store).config(DeliveryConfig.builder()
                .pollInterval(Duration.ofMillis(50)).build()).build();
                QuotaWarningDelivery sink = new QuotaWarningDelivery(new QuotaWarningDelivery.Config(location,
                        Optional.empty(), Optional.empty(), Map.of("free", "merchant"), 100), Optional.empty())) {
            delivery.registerDestination(new Destination("merchant", URI.create("http://127.0.0.1:"
                    + receiver.getAddress().getPort() + "/hooks"), new Rate(100, 100), SECRET, true));
            delivery.newWorker().start();

            EdgeConfig config = EdgeConfig.parse("edge.yaml", """
                    listen: 127.0.0.1:0
                    admin: off
                    upstream: { url: "http://127.0.0.1:%d" }
                    soft-limit: { threshold-percent: 80 }
                    plans:
                      free:
                        policies:
                          - { name: burst, kind: burst, q: 1000, w: 1 }
                          - { name: daily, kind: quota, q: 10, window: daily }
                    keys:
                      %s: free
                    """.formatted(upstream.getAddress().getPort(), KEY));
            try (EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults().withQuotaWarningSink(sink))) {
                for (int i = 1; i <= 10; i++) {
                    assertThat(get(edge).statusCode()).as("request %d", i).isEqualTo(200);
                }
            }
            await("the warning delivered").atMost(Duration.ofSeconds(20)).until(() -> received.size() == 1);
            Received w = received.get(0);
            // Standard Webhooks: v1,<base64 HMAC-SHA256 of id.timestamp.body>
            assertThat(w.signature()).contains(StandardWebhooks.sign(SECRET, w.id(), Long.parseLong(w.timestamp()),
                    w.body()));
            JsonNode event = JSON.readTree(w.body());
            assertThat(event.get("type").asText()).isEqualTo("quota.warning");
            assertThat(event.get("key_id").asText()).isEqualTo(KeyIds.DEFAULT.id(KEY));
            assertThat(event.get("policy").asText()).isEqualTo("daily");
            assertThat(event.get("used").asLong()).isEqualTo(8);
            assertThat(event.get("q").asLong()).isEqualTo(10);
            assertThat(w.body()).doesNotContain(KEY);

            // a restart forgets the in-memory limiter and which warnings were sent: the key crosses again
            try (EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults().withQuotaWarningSink(sink))) {
                for (int i = 1; i <= 9; i++) {
                    assertThat(get(edge).statusCode()).isEqualTo(200);
                }
            }
            await("the second proposal met the outbox's record").atMost(Duration.ofSeconds(10))
                    .until(() -> sink.duplicates() == 1);
            await("no second delivery").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5))
                    .until(() -> received.size() == 1);
            assertThat(sink.enqueued()).isEqualTo(1);
            assertThat(sink.dropped()).isZero();
        } finally {
            store.close();
        }
    }

    private HttpResponse<String> get(EdgeServer edge) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + "/v1/things"))
                .header("Authorization", "Bearer " + KEY).build(), HttpResponse.BodyHandlers.ofString());
    }
}
