package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.edge.testing.TestUpstream.Reply;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import java.io.ByteArrayInputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3.1 and the transport requirements over real sockets: HTTP/1.1 keep-alive and h2c
 * (prior knowledge) on one port, decision before the body (stalled clients), streaming bodies,
 * pooled upstream connections.
 */
class TransportHttpTest extends ShiplaneEdgeHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String STALLED_HEAD = "POST /v1/labels HTTP/1.1\r\nHost: edge\r\n"
            + "Authorization: Bearer " + FREE + "\r\nContent-Type: application/json\r\n"
            + "Content-Length: 10485760\r\n\r\n";

    @Test
    void http1StalledTenMebibyteBodyGetsIts429AndTheUpstreamSeesNothing() {
        edge.exhaustBurst(FREE);
        try (RawHttp client = new RawHttp(edge.server.port())) {
            client.send(STALLED_HEAD + "{\"shipment_id\":");  // 15 of 10,485,760 bytes, then nothing
            RawHttp.Response r = client.read();
            assertThat(r.status()).isEqualTo(429);
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(r.header("retry-after")).isEqualTo("1");
            assertThat(r.body()).contains("rate_limited");
            assertThat(client.closedByPeer()).isTrue();
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void http2StalledTenMebibyteBodyGetsIts429ThenTheStreamIsResetWithNoError() {
        edge.exhaustBurst(FREE);
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Stream s = h2.request("POST", "/v1/labels", new DefaultHttp2Headers()
                    .add("authorization", "Bearer " + FREE).add("content-type", "application/json")
                    .add("content-length", "10485760"), false);
            s.dataWithoutWaiting("{\"shipment_id\":".getBytes()); // 15 bytes, then the client stalls
            H2Client.Result r = s.await();
            assertThat(r.status()).isEqualTo(429);
            assertThat(r.header("retry-after")).isEqualTo("1");
            assertThat(r.header("ratelimit")).startsWith("\"burst\";r=0;t=1");
            assertThat(r.body()).contains("rate_limited");
            // RFC 9113 §8.1: a complete answer, then RST_STREAM(NO_ERROR) so the client stops sending
            assertThat(r.resetCode()).isEqualTo(Http2Error.NO_ERROR.code());
            // the connection survives: another stream works
            assertThat(h2.get("/v1/usage", FREE).status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void http1RejectionWithASmallBodyInFlightDrainsItAndKeepsTheConnection() {
        edge.exhaustBurst(FREE);
        try (RawHttp client = new RawHttp(edge.server.port())) {
            client.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nContent-Length: 1000\r\n\r\n" + "x".repeat(10));
            RawHttp.Response r = client.read();
            assertThat(r.status()).isEqualTo(429);
            assertThat(r.header("connection")).isNotEqualTo("close");
            client.send("y".repeat(990) + "GET /v1/usage HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\n\r\n");
            RawHttp.Response usage = client.read();
            assertThat(usage.status()).isEqualTo(200);
            assertThat(usage.body()).startsWith("{\"plan\":\"free\"");
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void http1KeepAliveServesPipelinedRequestsInOrder() {
        try (RawHttp client = new RawHttp(edge.server.port())) {
            String get = "GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE + "\r\n\r\n";
            String usage = "GET /v1/usage HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE + "\r\n\r\n";
            client.send(get + usage + get);
            RawHttp.Response first = client.read();
            RawHttp.Response second = client.read();
            RawHttp.Response third = client.read();
            assertThat(first.header("ratelimit")).startsWith("\"burst\";r=19;");
            assertThat(second.body()).contains("\"r\":19}");
            assertThat(third.header("ratelimit")).startsWith("\"burst\";r=18;");
        }
        assertThat(upstream.requests()).isEqualTo(2);
    }

    @Test
    void http2AndHttp1ShareOnePortAndTheContract() {
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.get("/v1/quotes", FREE);
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.header("ratelimit-policy")).isEqualTo("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
            assertThat(r.header("ratelimit")).isEqualTo("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
            assertThat(r.body()).isEqualTo("{\"ok\":true}");
            assertThat(r.resetCode()).isNull();
        }
        HttpResponse<String> h1 = edge.get("/v1/quotes", FREE);
        assertThat(h1.headers().firstValue("RateLimit")).hasValue("\"burst\";r=18;t=1, \"daily\";r=9998;t=43200");
        assertThat(upstream.requests()).isEqualTo(2);
    }

    @Test
    void http2RequestBodyStreamsToTheUpstream() {
        byte[] chunk = new byte[16 * 1024];
        Arrays.fill(chunk, (byte) 'a');
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Stream s = h2.request("POST", "/v1/labels", new DefaultHttp2Headers()
                    .add("authorization", "Bearer " + FREE), false);
            for (int i = 0; i < 40; i++) {
                s.data(chunk, i == 39);
            }
            H2Client.Result r = s.await();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.resetCode()).isNull();
        }
        assertThat(upstream.seen()).singleElement().satisfies(seen -> {
            assertThat(seen.bodyBytes()).isEqualTo(40L * 16 * 1024);
            assertThat(seen.header("Transfer-Encoding")).isEqualTo("chunked");
        });
    }

    @Test
    void largeBodiesStreamBothWays() {
        byte[] big = new byte[8 * 1024 * 1024];
        Arrays.fill(big, (byte) 'b');
        upstream.reply("/v1/export", new Reply(200, Map.of("Content-Type", "application/octet-stream"), big));
        HttpResponse<byte[]> down;
        try {
            down = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(edge.uri("/v1/export"))
                    .header("Authorization", "Bearer " + FREE).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofByteArray());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertThat(down.statusCode()).isEqualTo(200);
        assertThat(down.body()).hasSize(big.length);
        // a body of unknown length goes chunked, end to end
        HttpResponse<String> up = edge.send(HttpRequest.newBuilder(edge.uri("/v1/labels"))
                .header("Authorization", "Bearer " + FREE).timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))).build());
        assertThat(up.statusCode()).isEqualTo(200);
        assertThat(upstream.seen().get(1).bodyBytes()).isEqualTo(big.length);
    }

    @Test
    void upstreamConnectionsAreReused() {
        for (int i = 0; i < 15; i++) {
            assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(200);
        }
        Set<Integer> ports = upstream.seen().stream().map(TestUpstream.Seen::remotePort).collect(Collectors.toSet());
        assertThat(ports).hasSize(1);
        assertThat(upstream.requests()).isEqualTo(15);
    }

    @Test
    void expectContinueIsAnsweredOnlyAfterTheDecision() {
        try (RawHttp client = new RawHttp(edge.server.port())) {
            client.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
            RawHttp.Response interim = client.read();
            assertThat(interim.status()).isEqualTo(100);
            client.send("{}");
            assertThat(client.read().status()).isEqualTo(200);
        }
        edge.time.advance(Duration.ofSeconds(2));
        edge.exhaustBurst(FREE);
        try (RawHttp client = new RawHttp(edge.server.port())) {
            client.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n");
            RawHttp.Response r = client.read();
            assertThat(r.status()).isEqualTo(429);
            assertThat(client.closedByPeer()).isTrue();
        }
        assertThat(upstream.requests()).isEqualTo(1);
        assertThat(upstream.seen().get(0).header("Expect")).isNull();
    }
}
