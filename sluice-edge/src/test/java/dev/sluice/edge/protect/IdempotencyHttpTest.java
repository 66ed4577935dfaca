package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream.Reply;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.11 over real HTTP/1.1, on a fake clock: what a retried write gets from the edge. The upstream
 * answers 201 with a label, so every reach of it is visible in {@link TestUpstream#requests()}.
 */
@ExtendWith(NoLeaks.class)
class IdempotencyHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String CONFIG = """
            problem: { base-uri: https://docs.shiplane.example }
            idempotency: { max-response-bytes: %d }
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
            keys:
              sk_test_free_1: free
            routes:
              - { method: POST, path: /v1/labels, criticality: CRITICAL, idempotency-required: true }
              - { method: POST, path: /v1/export, idempotency-required: true }
            """;
    private static final byte[] LABEL = "{\"label_id\":\"lbl_00000001\",\"tracking_number\":\"SHP000000000042\"}"
            .getBytes(StandardCharsets.UTF_8);

    @AutoClose
    private final TestUpstream upstream = new TestUpstream().replyWith(s -> new Reply(201,
            Map.of("Content-Type", "application/json", "Location", "/v1/labels/lbl_00000001"), LABEL));
    @AutoClose
    private Edges edge = Edges.start(CONFIG.formatted(1024), upstream, "2026-11-30T12:00:00Z");

    private HttpResponse<String> buy(String idempotencyKey, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(edge.uri("/v1/labels")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + FREE).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (idempotencyKey != null) {
            b.header("Idempotency-Key", idempotencyKey);
        }
        return edge.send(b.build());
    }

    @Test
    void aRetryWithTheSameBodyGetsTheRecordedAnswerWithoutReachingTheUpstreamOrBeingCharged() {
        HttpResponse<String> first = buy("order-1001", "{\"to\":\"Ada\"}");
        HttpResponse<String> retry = buy("order-1001", "{\"to\":\"Ada\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).hasValue("/v1/labels/lbl_00000001");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requests()).isEqualTo(1);
        // not charged: the clock did not move, and the burst still shows the one admission (SPEC §3.11)
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
        assertThat(retry.headers().firstValue("RateLimit")).hasValue("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
        assertThat(SheddingLoadHttpTest.sum(edge.metrics(), "sluice_edge_decisions_total", "outcome=\"replayed\""))
                .isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherBodyIs409IdempotencyConflictWithoutRetryAfter() {
        buy("order-1002", "{\"to\":\"Ada\"}");
        HttpResponse<String> other = buy("order-1002", "{\"to\":\"Grace\"}");

        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(other.body()).contains("\"type\":\"https://docs.shiplane.example/errors/idempotency_conflict\"");
        assertThat(other.headers().firstValue("Retry-After")).isEmpty(); // a client bug: waiting cannot help
        assertThat(other.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(upstream.requests()).isEqualTo(1);
        assertThat(SheddingLoadHttpTest.sum(edge.metrics(), "sluice_edge_decisions_total",
                "outcome=\"idempotency_conflict\"")).isEqualTo(1);
    }

    @Test
    void aDuplicateWhileTheFirstIsInFlightIs409WithRetryAfterOneAndLaterGetsTheReplay() throws Exception {
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        upstream.replyWith(s -> {
            reached.countDown();
            try {
                release.await(10, TimeUnit.SECONDS); // the upstream is still working on the first request
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Reply(201, Map.of("Content-Type", "application/json"), LABEL);
        });
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> buy("order-1003", "{\"to\":\"Ada\"}"));
        assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();

        HttpResponse<String> duplicate = buy("order-1003", "{\"to\":\"Ada\"}");
        release.countDown();

        assertThat(duplicate.statusCode()).isEqualTo(409);
        assertThat(duplicate.headers().firstValue("Retry-After")).hasValue("1"); // SPEC §3.11
        assertThat(duplicate.body()).contains("/errors/idempotency_in_flight");
        assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(201);
        HttpResponse<String> later = buy("order-1003", "{\"to\":\"Ada\"}");
        assertThat(later.statusCode()).isEqualTo(201);
        assertThat(later.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requests()).isEqualTo(1);
    }

    @Test
    void theQueryIsPartOfTheFingerprintAnotherQueryIs409AndTheSameOneIsReplayed() {
        HttpResponse<String> ups = buyAt("/v1/labels?carrier=ups", "order-1006");
        HttpResponse<String> dhl = buyAt("/v1/labels?carrier=dhl", "order-1006");
        HttpResponse<String> noQuery = buyAt("/v1/labels", "order-1006");
        HttpResponse<String> upsAgain = buyAt("/v1/labels?carrier=ups", "order-1006");

        assertThat(ups.statusCode()).isEqualTo(201);
        assertThat(dhl.statusCode()).isEqualTo(409); // SPEC §3.11: another request under the same key
        assertThat(dhl.body()).contains("/errors/idempotency_conflict").contains("POST /v1/labels?carrier=ups");
        assertThat(noQuery.statusCode()).isEqualTo(409);
        assertThat(upsAgain.statusCode()).isEqualTo(201);
        assertThat(upsAgain.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requests()).isEqualTo(1);
    }

    private HttpResponse<String> buyAt(String target, String idempotencyKey) {
        return edge.send(HttpRequest.newBuilder(edge.uri(target)).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + FREE).header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString("{\"to\":\"Ada\"}")).build());
    }

    @Test
    void aRouteThatRequiresAKeyAnswersWithoutOne400IdempotencyKeyRequired() {
        HttpResponse<String> r = buy(null, "{\"to\":\"Ada\"}");

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).contains("\"type\":\"https://docs.shiplane.example/errors/idempotency_key_required\"");
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"burst\";r=20;t=0, \"daily\";r=10000;t=0");
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void anAnswerLargerThanTheBoundIsRecordedAsNotReplayableAndARetryGets409Saying() {
        edge.close();
        edge = Edges.start(EdgeConfig.parse("idempotency.yaml", CONFIG.formatted(32)), upstream.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z"));
        HttpResponse<String> first = buy("order-1004", "{\"to\":\"Ada\"}");
        HttpResponse<String> retry = buy("order-1004", "{\"to\":\"Ada\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).hasSize(LABEL.length); // 66 bytes: the client got all of it
        assertThat(retry.statusCode()).isEqualTo(409);
        assertThat(retry.body()).contains("/errors/idempotency_conflict")
                .contains("was carried out (status 201), but its answer was not kept")
                .contains("exceeded 32 bytes");
        assertThat(upstream.requests()).isEqualTo(1); // not carried out twice either
    }

    @Test
    void aRecordExpiresAfterItsRetentionOf24Hours() {
        buy("order-1005", "{\"to\":\"Ada\"}");
        edge.time.advance(Duration.ofHours(24).minusSeconds(1));
        HttpResponse<String> justBefore = buy("order-1005", "{\"to\":\"Ada\"}");
        edge.time.advance(Duration.ofSeconds(1)); // SPEC §3.11: records expire after 24 h by default
        HttpResponse<String> after = buy("order-1005", "{\"to\":\"Ada\"}");

        assertThat(justBefore.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(after.statusCode()).isEqualTo(201);
        assertThat(after.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(upstream.requests()).isEqualTo(2);
    }
}
