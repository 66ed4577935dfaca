package dev.sluice.examples.shiplane;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Shiplane's routes over real HTTP on loopback, with no latency so the tests do not wait. */
class ShiplaneServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static ShiplaneServer shiplane;
    private static HttpClient http;

    @BeforeAll
    static void start() throws IOException {
        shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0)
                .withLatency(Duration.ZERO, Duration.ZERO).withRandom(new SplittableRandom(7)));
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @AfterAll
    static void stop() {
        shiplane.close();
        http.close();
    }

    @BeforeEach
    void noBlip() {
        shiplane.blip(false);
    }

    @Test
    void buyingALabelReturnsItsIdAndTrackingNumberAndCountsIt() throws Exception {
        long before = shiplane.stats().labelsCreated();

        HttpResponse<String> r = send(post("/v1/labels").header("Idempotency-Key", "buy-one"));

        assertThat(r.statusCode()).isEqualTo(201);
        JsonNode label = JSON.readTree(r.body());
        assertThat(label.path("label_id").asText()).matches("lbl_\\d{8}");
        assertThat(label.path("tracking_number").asText()).matches("SHP\\d{12}");
        assertThat(shiplane.stats().labelsCreated()).isEqualTo(before + 1);
        assertThat(shiplane.labelsBoughtWith("buy-one")).isEqualTo(1);
    }

    @Test
    void buyingALabelWithoutAnIdempotencyKeyIs400AndBuysNothing() throws Exception {
        long before = shiplane.stats().labelsCreated();

        HttpResponse<String> r = send(post("/v1/labels"));

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(JSON.readTree(r.body()).path("type").asText()).endsWith("/idempotency_key_required");
        assertThat(shiplane.stats().labelsCreated()).isEqualTo(before);
    }

    @Test
    void aBlankIdempotencyKeyIsRefusedToo() throws Exception {
        assertThat(send(post("/v1/labels").header("Idempotency-Key", " ")).statusCode()).isEqualTo(400);
    }

    @Test
    void theSameIdempotencyKeyTwiceBuysTwoLabelsBecauseShiplaneDedupesNothing() throws Exception {
        long duplicatesBefore = shiplane.stats().duplicateLabels();

        assertThat(send(post("/v1/labels").header("Idempotency-Key", "retried-write")).statusCode()).isEqualTo(201);
        assertThat(send(post("/v1/labels").header("Idempotency-Key", "retried-write")).statusCode()).isEqualTo(201);

        assertThat(shiplane.labelsBoughtWith("retried-write")).isEqualTo(2);
        assertThat(shiplane.stats().duplicateLabels()).isEqualTo(duplicatesBefore + 1);
    }

    @Test
    void aBatchBuysTenLabels() throws Exception {
        long before = shiplane.stats().labelsCreated();

        HttpResponse<String> r = send(post("/v1/labels:batch").header("Idempotency-Key", "batch-1"));

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(JSON.readTree(r.body()).path("labels")).hasSize(10);
        assertThat(shiplane.stats().labelsCreated()).isEqualTo(before + 10);
        assertThat(shiplane.labelsBoughtWith("batch-1")).isEqualTo(10);
    }

    @Test
    void quotesAreACheapGetWithThreePrices() throws Exception {
        HttpResponse<String> r = send(get("/v1/quotes"));

        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode quotes = JSON.readTree(r.body()).path("quotes");
        assertThat(quotes).hasSize(3);
        assertThat(quotes.get(0).path("amount_cents").asInt()).isBetween(600, 999);
    }

    @Test
    void loginNeedsNoCredential() throws Exception {
        HttpResponse<String> r = send(post("/v1/login"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).path("token").asText()).startsWith("tok_");
    }

    @Test
    void duringABlipEveryRouteAnswers503WithRetryAfterAndBuysNothing() throws Exception {
        long before = shiplane.stats().labelsCreated();
        long unavailableBefore = shiplane.stats().unavailable();
        shiplane.blip(true);

        HttpResponse<String> label = send(post("/v1/labels").header("Idempotency-Key", "during-blip"));
        HttpResponse<String> quote = send(get("/v1/quotes"));

        assertThat(label.statusCode()).isEqualTo(503);
        assertThat(quote.statusCode()).isEqualTo(503);
        assertThat(label.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(shiplane.stats().labelsCreated()).isEqualTo(before);
        assertThat(shiplane.stats().unavailable()).isEqualTo(unavailableBefore + 2);
        assertThat(shiplane.labelsBoughtWith("during-blip")).isZero();

        shiplane.blip(false);
        assertThat(send(post("/v1/labels").header("Idempotency-Key", "after-blip")).statusCode()).isEqualTo(201);
    }

    @Test
    void theBlipCanBeSwitchedOverHttpForAShiplaneRunAlone() throws Exception {
        assertThat(send(post("/_shiplane/blip?on=true")).statusCode()).isEqualTo(204);
        assertThat(shiplane.blipping()).isTrue();
        assertThat(JSON.readTree(send(get("/_shiplane/stats")).body()).path("blip").asBoolean()).isTrue();

        assertThat(send(post("/_shiplane/blip?on=false")).statusCode()).isEqualTo(204);
        assertThat(shiplane.blipping()).isFalse();
        assertThat(send(post("/_shiplane/blip?on=maybe")).statusCode()).isEqualTo(400);
    }

    @Test
    void statsCountLabelsAndRequestsPerRoute() throws Exception {
        send(post("/v1/labels").header("Idempotency-Key", "stats-1"));
        JsonNode stats = JSON.readTree(send(get("/_shiplane/stats")).body());

        assertThat(stats.path("labels_created").asLong()).isEqualTo(shiplane.stats().labelsCreated());
        assertThat(stats.path("requests_by_route").path("POST /v1/labels").asLong()).isPositive();
    }

    @Test
    void aWrongMethodIs405WithAllowAndAnUnknownPathIs404() throws Exception {
        HttpResponse<String> wrong = send(post("/v1/quotes"));
        assertThat(wrong.statusCode()).isEqualTo(405);
        assertThat(wrong.headers().firstValue("Allow")).hasValue("GET");

        assertThat(send(get("/v1/parcels")).statusCode()).isEqualTo(404);
    }

    @Test
    void latencyIsUniformWithinMeanPlusOrMinusJitter() {
        Duration mean = Duration.ofMillis(20);
        Duration jitter = Duration.ofMillis(5);

        assertThat(ShiplaneServer.latencyNanos(mean, jitter, fixed(0))).isEqualTo(15_000_000L);
        assertThat(ShiplaneServer.latencyNanos(mean, jitter, fixed(10_000_000))).isEqualTo(25_000_000L);
        assertThat(ShiplaneServer.latencyNanos(mean, Duration.ZERO, fixed(0))).isEqualTo(20_000_000L);
        RandomGenerator seeded = new SplittableRandom(1);
        for (int i = 0; i < 1_000; i++) {
            assertThat(ShiplaneServer.latencyNanos(mean, jitter, seeded)).isBetween(15_000_000L, 25_000_000L);
        }
    }

    /** A generator whose bounded draws return {@code value} (clamped below the bound). */
    private static RandomGenerator fixed(long value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return value;
            }

            @Override
            public long nextLong(long bound) {
                return Math.min(value, bound - 1);
            }
        };
    }

    private static HttpRequest.Builder post(String path) {
        return HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString("{\"weight_g\":500}"));
    }

    private static HttpRequest.Builder get(String path) {
        return HttpRequest.newBuilder(uri(path)).GET();
    }

    private static URI uri(String path) {
        return URI.create(shiplane.baseUri() + path);
    }

    private static HttpResponse<String> send(HttpRequest.Builder b) throws IOException, InterruptedException {
        return http.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
