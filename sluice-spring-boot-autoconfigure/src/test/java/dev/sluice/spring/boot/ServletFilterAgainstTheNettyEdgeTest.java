package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import dev.sluice.spring.boot.app.TestShiplane;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.time.TimeSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The Servlet filter in a real Spring MVC application on embedded Tomcat (random port), called over
 * real HTTP with the JDK client, side by side with the real Netty edge started from the same
 * {@code EdgeConfig} the starter read from {@code application.yml}, on the same manual clock: every
 * answer's status and Sluice fields ({@code RateLimit-Policy}, {@code RateLimit}, {@code Retry-After},
 * {@code Cache-Control}, {@code Content-Type} of the edge's own answers) and every problem or usage
 * body are byte for byte the edge's — one decision code, two servers. Literal values from SPEC §2,
 * §3 are asserted too, so a fault shared by both would still fail.
 */
@SpringBootTest(classes = {TestShiplane.class, ServletFilterAgainstTheNettyEdgeTest.Clock.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ServletFilterAgainstTheNettyEdgeTest {

    static final ManualTimeSource CLOCK = ManualTimeSource.at("2026-11-30T12:00:00Z");

    @TestConfiguration
    static class Clock {
        @Bean
        TimeSource sluiceTimeSource() {
            return CLOCK;
        }
    }

    private static final List<String> SLUICE_FIELDS = List.of("RateLimit-Policy", "RateLimit", "Retry-After",
            "Cache-Control", "RateLimit-Warning");

    @LocalServerPort
    int port;

    @Autowired
    EdgeConfig config;

    private ShiplaneServer shiplane;
    private EdgeServer edge;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void startEdge() throws Exception {
        shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0).withLatency(Duration.ZERO, Duration.ZERO));
        edge = EdgeServer.start(config.withListen(config.listen().withHost("127.0.0.1").withPort(0))
                .withAdmin(Optional.empty()).withUpstreamUrl(shiplane.baseUri()), EdgeOptions.defaults().withTime(CLOCK));
    }

    @AfterEach
    void stopEdge() {
        edge.close();
        shiplane.close();
    }

    private record Seen(int status, List<String> fields, String body) {
    }

    private Seen send(int serverPort, String method, String path, String key, String idempotencyKey) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serverPort + path))
                .method(method, method.equals("POST") ? HttpRequest.BodyPublishers.ofString("{\"shipment_id\":\"shp_1\"}")
                        : HttpRequest.BodyPublishers.noBody());
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        List<String> fields = new ArrayList<>();
        for (String name : SLUICE_FIELDS) {
            fields.add(name + ": " + r.headers().allValues(name));
        }
        boolean edgeAnswered = r.statusCode() >= 400 || path.equals("/v1/usage");
        if (edgeAnswered) {
            fields.add("Content-Type: " + r.headers().allValues("Content-Type"));
        }
        return new Seen(r.statusCode(), fields, edgeAnswered ? r.body() : "");
    }

    /** The same request to both servers; their answers must be the same. */
    private Seen both(String method, String path, String key, String idempotencyKey) throws Exception {
        Seen viaFilter = send(port, method, path, key, idempotencyKey);
        Seen viaEdge = send(edge.port(), method, path, key, idempotencyKey);
        assertThat(viaFilter).as(method + " " + path + " through the filter vs the Netty edge").isEqualTo(viaEdge);
        return viaFilter;
    }

    @Test
    void theFilterAnswersByteForByteAsTheNettyEdge() throws Exception {
        Seen usage = both("GET", "/v1/usage", "sk_free", null);
        assertThat(usage.status()).isEqualTo(200);
        assertThat(usage.fields()).contains("RateLimit-Policy: [\"burst\";q=3;w=60, \"daily\";q=100;w=86400]",
                "Cache-Control: [no-store]");

        for (int i = 0; i < 3; i++) {
            Seen ok = both("GET", "/v1/quotes", "sk_free", null);
            assertThat(ok.status()).isEqualTo(200);
        }
        Seen limited = both("GET", "/v1/quotes", "sk_free", null);
        assertThat(limited.status()).isEqualTo(429);
        assertThat(limited.fields()).contains("Content-Type: [application/problem+json]", "Cache-Control: [no-store]");
        assertThat(limited.body()).contains("\"type\":\"https://docs.shiplane.example/errors/rate_limited\"");

        // all or nothing (SPEC §3.3): the refused request charged neither policy; usage is not charged (§3.6)
        Seen after = both("GET", "/v1/usage", "sk_free", null);
        assertThat(after.body()).contains("{\"name\":\"daily\",\"q\":100,\"w\":86400,\"r\":97");

        assertThat(both("GET", "/v1/quotes", null, null).status()).isEqualTo(401);
        assertThat(both("GET", "/v1/quotes", "sk_nobody", null).status()).isEqualTo(401);
        assertThat(both("POST", "/v1/labels", "sk_free_2", null).status()).as("idempotency_key_required").isEqualTo(400);

        CLOCK.advance(Duration.ofSeconds(20)); // one burst token back
        assertThat(both("GET", "/v1/quotes", "sk_free", null).status()).isEqualTo(200);
    }

    @Autowired
    TestShiplane app;

    @Test
    void aRetriedWriteGetsTheRecordedAnswerAndTheControllerRunsOnce() throws Exception {
        HttpRequest write = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/labels"))
                .header("Authorization", "Bearer sk_free_2").header("Idempotency-Key", "key-replay-1")
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"shipment_id\":\"shp_9\"}")).build();
        HttpResponse<String> first = http.send(write, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> retry = http.send(write, HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).as("SPEC §3.11").contains("true");
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(app.labels.get("key-replay-1")).as("the handler ran once").hasValue(1);
    }

    @Test
    void anAnonymousRouteIsLimitedPerClientAddressWithAConstantRetryAfter() throws Exception {
        assertThat(both("POST", "/v1/login", null, null).status()).isEqualTo(200);
        Seen second = both("POST", "/v1/login", null, null);
        assertThat(second.status()).isEqualTo(429);
        assertThat(second.fields()).contains("RateLimit: []", "RateLimit-Policy: []");
    }
}
