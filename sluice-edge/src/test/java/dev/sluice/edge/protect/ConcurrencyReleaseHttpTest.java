package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream.Reply;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.limiter.PolicyState;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §1 {@code concurrent-requests}: a slot taken at admission comes back when the client goes away
 * mid-request, over HTTP/1.1 (the connection closes) and HTTP/2 (RST_STREAM), and nothing is left
 * behind: the next request is admitted, the shedder's count is back to zero, and no buffer leaks
 * (paranoid leak detection). The key's plan allows one request in flight.
 */
@ExtendWith(NoLeaks.class)
class ConcurrencyReleaseHttpTest {

    private static final String KEY = "sk_team";
    private static final String CONFIG = """
            plans:
              team:
                policies:
                  - { name: burst, kind: burst, q: 100, w: 1 }
                  - { name: inflight, kind: concurrency, q: 1 }
            keys:
              sk_team: team
            routes:
              - { method: POST, path: /v1/labels }
              - { method: GET, path: /v1/slow }
            """;
    private static final String POLICY = "\"burst\";q=100;w=1, \"inflight\";q=1;qu=\"concurrent-requests\"";

    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    @AutoClose
    private final Edges edge = Edges.start(CONFIG, upstream, "2026-11-30T12:00:00Z");

    /** The key's requests in flight, as the limiter counts them. */
    private long inFlight() {
        for (PolicyState s : edge.server.store().usage(KEY, edge.plan(KEY))) {
            if (s.policy().name().equals("inflight")) {
                return s.used();
            }
        }
        throw new AssertionError("no inflight policy");
    }

    private void awaitInFlight(long n, String why) {
        await(why).atMost(Duration.ofSeconds(10)).until(() -> inFlight() == n);
    }

    private HttpResponse<String> post() {
        return edge.send(HttpRequest.newBuilder(edge.uri("/v1/labels")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + KEY).POST(HttpRequest.BodyPublishers.ofString("{}")).build());
    }

    /** While the slot is held, another request is refused 429 by the concurrency policy. */
    private void assertSlotHeld() {
        HttpResponse<String> second = post();
        assertThat(second.statusCode()).isEqualTo(429);
        assertThat(second.headers().firstValue("RateLimit-Policy")).hasValue(POLICY);
        assertThat(second.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v)
                .contains("\"inflight\";r=0"));
    }

    private void assertReleased() {
        awaitInFlight(0, "the concurrency slot comes back");
        await("the shedder's slot too").atMost(Duration.ofSeconds(10))
                .until(() -> edge.server.shedder().inFlight() == 0);
        HttpResponse<String> next = post();
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(next.headers().firstValue("RateLimit")).hasValueSatisfying(v -> assertThat(v)
                .contains("\"inflight\";r=0")); // its own slot, taken and
        awaitInFlight(0, "given back when its answer completed");
    }

    @Test
    void http1ConnectionClosedMidBodyGivesTheSlotBack() {
        try (RawHttp client = new RawHttp(edge.server.port())) {
            client.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + KEY
                    + "\r\nContent-Length: 100\r\n\r\n" + "{\"to\":"); // 6 of 100 bytes, then the client leaves
            awaitInFlight(1, "the stalled request was admitted");
            assertSlotHeld();
        }
        assertReleased();
    }

    @Test
    void http2StreamResetMidBodyGivesTheSlotBackAndTheConnectionStaysUsable() {
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Stream s = h2.request("POST", "/v1/labels", new DefaultHttp2Headers()
                    .add("authorization", "Bearer " + KEY).add("content-length", "100"), false);
            s.data("{\"to\":".getBytes(), false);
            awaitInFlight(1, "the stalled stream was admitted");
            assertSlotHeld();

            s.cancel(); // RST_STREAM(CANCEL): RFC 9113 §6.4
            awaitInFlight(0, "the reset stream's slot comes back");
            H2Client.Result next = h2.get("/v1/slow", KEY); // same connection, a new stream
            assertThat(next.status()).isEqualTo(200);
        }
        assertReleased();
    }

    @Test
    void http1ClientGoneWhileTheUpstreamWorksGivesTheSlotBackAtOnce() throws Exception {
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        upstream.replyWith(seen -> {
            reached.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Reply.ok();
        });
        try {
            try (RawHttp client = new RawHttp(edge.server.port())) {
                client.send("GET /v1/slow HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + KEY + "\r\n\r\n");
                assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue(); // the whole request is upstream
                assertThat(inFlight()).isEqualTo(1);
            }
            // no idempotency record wants the answer: the edge drops the upstream exchange and the slot
            awaitInFlight(0, "the slot comes back before the upstream answers");
            assertThat(release.getCount()).isEqualTo(1);
        } finally {
            release.countDown();
        }
        assertReleased();
    }
}
