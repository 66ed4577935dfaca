package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.H2Client;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/2 header block over {@code listen.max-header-bytes} (16 KiB) is answered 431 with a problem body and
 * {@code Cache-Control: no-store}, as on HTTP/1.1, whatever its size; one too large for Netty to decode ends
 * the connection with a GOAWAY that covers its stream, so the client is not told it may retry it (RFC 9113
 * §6.8, §8.7).
 */
class Http2HeaderSizeHttpTest extends ShiplaneEdgeHttpTest {

    private static final String FREE = "sk_test_free_1";

    private static Http2Headers withHeaderOf(int bytes) {
        return new DefaultHttp2Headers().add("authorization", "Bearer " + FREE).add("x-big", "a".repeat(bytes));
    }

    private static void assertProblem431(H2Client.Result r) {
        assertThat(r.status()).isEqualTo(431);
        assertThat(r.header("content-type")).isEqualTo("application/problem+json");
        assertThat(r.header("cache-control")).isEqualTo("no-store");
        assertThat(r.header("date")).isEqualTo("Mon, 30 Nov 2026 12:00:00 GMT");
        assertThat(r.body()).contains("\"type\":\"https://docs.shiplane.example/errors/request_header_fields_too_large\"",
                "\"status\":431", "larger than 16384 bytes");
    }

    @Test
    void a20KbHeaderIs431WithAProblemBodyAndTheConnectionStaysUsable() {
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.request("GET", "/v1/quotes", withHeaderOf(20_000), true).await();

            assertProblem431(r);
            assertThat(h2.get("/v1/quotes", FREE).status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).isEqualTo(1);
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"header_too_large\"} 1.0");
    }

    @Test
    void a100KbHeaderIs431AndTheGoAwayCoversItsStreamSoNothingInvitesARetry() {
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.request("GET", "/v1/quotes", withHeaderOf(100_000), true).await();

            assertProblem431(r);
            H2Client.GoAway goAway = h2.awaitGoAway();
            // Netty's GOAWAY named stream 0 (none created): "not processed, retry it elsewhere", and curl did
            assertThat(goAway.lastStreamId()).isPositive();
            assertThat(goAway.errorCode()).isEqualTo(0x1); // PROTOCOL_ERROR: the HPACK state is lost
        }
        assertThat(upstream.requests()).isZero();
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"header_too_large\"} 1.0");
    }
}
