package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §1 {@code content-bytes} over real HTTP, on a fake clock: a plan limiting request bytes charges
 * each request its {@code Content-Length}, says {@code qu="content-bytes"} in {@code RateLimit-Policy}, and
 * answers a body without a length with 411 before reading it.
 */
@ExtendWith(NoLeaks.class)
class ContentBytesHttpTest {

    private static final String KEY = "sk_upload";
    private static final String CONFIG = """
            plans:
              upload:
                policies:
                  - { name: requests, kind: burst, q: 100, w: 1 }
                  - { name: bytes, kind: burst, q: 1000, w: 1, unit: content-bytes }
            keys:
              sk_upload: upload
            routes:
              - { method: POST, path: /v1/labels }
              - { method: GET, path: /v1/quotes }
            """;
    private static final String POLICY = "\"requests\";q=100;w=1, \"bytes\";q=1000;w=1;qu=\"content-bytes\"";

    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    @AutoClose
    private final Edges edge = Edges.start(CONFIG, upstream, "2026-11-30T12:00:00Z");

    private HttpResponse<String> post(int bytes) {
        return edge.send(HttpRequest.newBuilder(edge.uri("/v1/labels")).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + KEY)
                .POST(HttpRequest.BodyPublishers.ofString("x".repeat(bytes))).build());
    }

    @Test
    void aRequestIsChargedItsContentLengthAndThePolicySaysItsUnit() {
        HttpResponse<String> first = post(300);
        HttpResponse<String> tooMuch = post(800); // 700 bytes left in the bucket

        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy")).hasValue(POLICY);
        assertThat(first.headers().firstValue("RateLimit")).hasValue("\"requests\";r=99;t=1, \"bytes\";r=700;t=1");
        assertThat(tooMuch.statusCode()).isEqualTo(429);
        assertThat(tooMuch.headers().firstValue("RateLimit-Policy")).hasValue(POLICY);
        assertThat(tooMuch.body()).contains("\"violated-policies\":[\"bytes\"]");
        assertThat(upstream.seen()).singleElement().satisfies(s -> assertThat(s.bodyBytes()).isEqualTo(300));
    }

    @Test
    void aChunkedBodyWithoutContentLengthIs411AndChargedNothing() {
        try (RawHttp client = new RawHttp(edge.server.port())) {
            client.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + KEY
                    + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
            RawHttp.Response r = client.read();
            assertThat(r.status()).isEqualTo(411);
            assertThat(r.body()).contains("/errors/length_required");
            assertThat(r.header("ratelimit-policy")).isEqualTo(POLICY);
            assertThat(r.header("ratelimit")).isEqualTo("\"requests\";r=100;t=0, \"bytes\";r=1000;t=0");
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void anHttp2BodyWithoutContentLengthIs411Too() {
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.request("POST", "/v1/labels", new DefaultHttp2Headers()
                    .add("authorization", "Bearer " + KEY), false).data("hello".getBytes(), true).await();
            assertThat(r.status()).isEqualTo(411);
            assertThat(r.header("ratelimit-policy")).isEqualTo(POLICY);
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void aRequestWithoutABodyNeedsNoLengthAndCostsNoBytes() {
        HttpResponse<String> r = edge.get("/v1/quotes", KEY);

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"requests\";r=99;t=1, \"bytes\";r=1000;t=0");
    }
}
