package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.SluiceHttpClient;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;

/**
 * The server side (the Servlet filter on embedded Tomcat, the WebFilter on Reactor Netty: one
 * subclass each) in a real application on a random port, called over real HTTP with the JDK client
 * and with the SDK, side by side with the real Netty edge started from the same {@code EdgeConfig}
 * the starter read from {@code application.yml}, on the same manual clock: every answer's status and
 * Sluice fields ({@code RateLimit-Policy}, {@code RateLimit}, {@code Retry-After},
 * {@code Cache-Control}, {@code RateLimit-Warning}, {@code Content-Type} of the edge's own answers)
 * and every problem or usage body are byte for byte the edge's — one decision code, three servers.
 * Literal values from SPEC §2, §3 are asserted too, so a fault shared by all would still fail.
 */
abstract class ServerSideAgainstTheNettyEdge {

    static final ManualTimeSource CLOCK = ManualTimeSource.at("2026-11-30T12:00:00Z");

    /** The manual clock, for the filter's limiter and the edge's alike. */
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
    void theServerSideAnswersByteForByteAsTheNettyEdge() throws Exception {
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
    void pastTheSoftLimitTheWarningIsTheEdgesAndTheQuotaIsStillServed() throws Exception {
        for (int used = 1; used <= 5; used++) {
            Seen seen = both("GET", "/v1/quotes", "sk_soft", null);
            assertThat(seen.status()).isEqualTo(200);
            // SPEC §3.8: from 80 % of the daily quota of 5 on, RateLimit-Warning names the policy and its use
            assertThat(seen.fields()).contains(used >= 4
                    ? "RateLimit-Warning: [\"daily\";used=" + used + ";q=5]" : "RateLimit-Warning: []");
        }
        Seen spent = both("GET", "/v1/quotes", "sk_soft", null);
        assertThat(spent.status()).isEqualTo(429);
        assertThat(spent.body()).contains("\"type\":\"https://docs.shiplane.example/errors/quota_exhausted\"");
    }

    @Test
    void theSdkReadsTheContractOverHttp() throws Exception {
        HttpRequest quotes = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/quotes"))
                .header("Authorization", "Bearer sk_tiny").build();
        try (SluiceHttpClient sdk = SluiceHttpClient.builder().build()) {
            HttpResponse<String> first = sdk.send(quotes, HttpResponse.BodyHandlers.ofString());
            assertThat(first.statusCode()).isEqualTo(200);
            // a daily quota resets at the next UTC midnight (the clock is shared, other tests move it on)
            long toMidnight = Duration.between(CLOCK.now(), CLOCK.now().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1)))
                    .toSeconds();
            assertThat(first.headers().allValues("RateLimit")).containsExactly("\"daily\";r=1;t=" + toMidnight);

            assertThat(send(port, "GET", "/v1/quotes", "sk_tiny", null).status()).as("the last of 2, spent around the SDK")
                    .isEqualTo(200);

            QuotaExceededException refused = catchThrowableOfType(QuotaExceededException.class,
                    () -> sdk.send(quotes, HttpResponse.BodyHandlers.ofString()));
            assertThat(refused).as("a spent quota is the SDK's typed error (SPEC §4.2)").isNotNull();
            assertThat(refused.status()).isEqualTo(429);
            assertThat(refused.attempts()).as("never retried").isEqualTo(1);

            QuotaExceededException local = catchThrowableOfType(QuotaExceededException.class,
                    () -> sdk.send(quotes, HttpResponse.BodyHandlers.ofString()));
            assertThat(local).isNotNull();
            assertThat(local.attempts()).as("the SDK now knows: no request at all").isZero();
        }
        Seen usage = send(port, "GET", "/v1/usage", "sk_tiny", null);
        assertThat(usage.body()).contains("{\"name\":\"daily\",\"q\":2,\"w\":86400,\"r\":0");
    }

    @Test
    void theEdgesMetersAreOnTheApplicationsRegistryAndActuatorShowsThem() throws Exception {
        assertThat(send(port, "GET", "/v1/quotes", null, null).status()).isEqualTo(401);
        HttpResponse<String> metric = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/actuator/metrics/sluice.edge.decisions?tag=outcome:unauthenticated"))
                .header("Authorization", "Bearer sk_ops").build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metric.statusCode()).isEqualTo(200);
        assertThat(metric.body()).contains("\"name\":\"sluice.edge.decisions\"");
        assertThat(metric.body()).containsPattern("\"statistic\":\"COUNT\",\"value\":[1-9]");
        assertThat(metric.headers().firstValue("RateLimit-Policy")).as("Actuator is behind the contract too")
                .contains("\"burst\";q=1000;w=1");
    }

    @Test
    void aRetriedWriteGetsTheRecordedAnswerAndTheHandlerRunsOnce() throws Exception {
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
