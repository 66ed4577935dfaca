package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream.Reply;
import dev.sluice.edge.testing.TestUpstream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.9 deadlines over real HTTP/1.1: a request whose deadline ({@code Request-Timeout}) passes while
 * it waits for an upstream connection, or while the upstream is slow, is answered at the deadline by a
 * timer, not on the next event (the upstream's answer, a pooled connection, the 30 s response timeout).
 * The upstream holds every request until the test has read the edge's answer, so an answer that waited
 * for the upstream cannot pass.
 */
@ExtendWith(NoLeaks.class)
class DeadlineTimerHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String CONFIG = """
            admin: off
            listen: { io-threads: 1 }
            upstream: { pool-size: 1, response-timeout: 30s, connect-timeout: 20s }
            shedding: { limit: 10 }
            problem: { base-uri: https://docs.shiplane.example }
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
            keys:
              sk_test_free_1: free
            routes:
              - { method: GET, path: /v1/quotes }
              - { method: POST, path: /v1/labels, idempotency-required: true }
            """;
    private static final byte[] LABEL = "{\"label_id\":\"lbl_1\"}".getBytes(StandardCharsets.UTF_8);

    private final CountDownLatch release = new CountDownLatch(1);
    @AutoClose
    private final TestUpstream upstream = new TestUpstream().replyWith(s -> {
        try {
            release.await(20, TimeUnit.SECONDS); // a slow upstream: answers when the test says so
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Reply(201, Map.of("Content-Type", "application/json"), LABEL);
    });
    @AutoClose
    private final Edges edge = Edges.start(CONFIG, upstream, "2026-11-30T12:00:00Z");

    @AfterEach
    void releaseTheUpstream() {
        release.countDown();
    }

    private HttpRequest.Builder request(String path, String requestTimeout) {
        HttpRequest.Builder b = HttpRequest.newBuilder(edge.uri(path)).timeout(Duration.ofSeconds(15))
                .header("Authorization", "Bearer " + FREE);
        if (requestTimeout != null) {
            b.header("Request-Timeout", requestTimeout);
        }
        return b;
    }

    @Test
    void aDeadlineThatPassesWhileTheUpstreamIsSlowIsA504AtTheDeadline() {
        HttpResponse<String> r = edge.send(request("/v1/quotes", "0.3").GET().build());

        assertThat(r.statusCode()).isEqualTo(504);
        assertThat(r.body()).contains("/errors/upstream_timeout").contains("deadline");
        assertThat(r.headers().firstValue("RateLimit")).isPresent(); // the key's fields, as on every answer
        assertThat(release.getCount()).isEqualTo(1); // the upstream had not answered
    }

    @Test
    void aDeadlineThatPassesWhileWaitingForAnUpstreamConnectionIsA503RefundedAtTheDeadline() {
        // the only upstream connection is held by a request without a deadline
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(
                () -> edge.send(request("/v1/quotes", null).GET().build()));
        await("the first request reached the upstream").atMost(Duration.ofSeconds(10))
                .until(() -> upstream.requests() == 1);

        HttpResponse<String> queued = edge.send(request("/v1/quotes", "0.3").GET().build());

        assertThat(queued.statusCode()).isEqualTo(503);
        assertThat(queued.body()).contains("/errors/overloaded").contains("deadline passed");
        assertThat(queued.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(release.getCount()).isEqualTo(1);
        assertThat(upstream.requests()).isEqualTo(1);
        release.countDown();
        assertThat(first.join().statusCode()).isEqualTo(201);
        // refunded (SPEC §3.9: dropped work is charged to nothing): on the unmoved clock, the next admission
        // leaves 18 of 20, the first request's unit and its own
        HttpResponse<String> next = edge.send(request("/v1/quotes", null).GET().build());
        assertThat(next.headers().firstValue("RateLimit")).hasValue("\"burst\";r=18;t=1");
    }

    @Test
    void anIdempotentRequestCutAtItsDeadlineIsStillRecordedSoItsRetryIsReplayed() {
        HttpResponse<String> cut = edge.send(request("/v1/labels", "0.3").header("Idempotency-Key", "order-1")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build());
        assertThat(cut.statusCode()).isEqualTo(504);
        release.countDown(); // the upstream carries it out after all; the edge still reads and records its answer

        // 409 idempotency_in_flight while the answer is on its way
        HttpResponse<String> retry = await("the retry is answered other than 409").atMost(Duration.ofSeconds(20))
                .until(() -> edge.send(request("/v1/labels", null).header("Idempotency-Key", "order-1")
                        .POST(HttpRequest.BodyPublishers.ofString("{}")).build()), r -> r.statusCode() != 409);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(upstream.requests()).isEqualTo(1); // never carried out twice
    }
}
