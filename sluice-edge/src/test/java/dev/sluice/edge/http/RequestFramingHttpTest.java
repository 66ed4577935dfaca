package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.RawHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * HTTP/1.1 message framing and Host (RFC 9112 §3.2, §5, §6): what a request-smuggling or routing-confusion
 * attempt looks like is answered by the edge with a problem and a closed connection, and never reaches the
 * upstream. Some shapes are refused by the edge itself (Host, unknown transfer codings), the others by
 * Netty's decoder, which is tested here so that a Netty upgrade that relaxes one is noticed.
 */
class RequestFramingHttpTest extends ShiplaneEdgeHttpTest {

    private static final String KEY = "Authorization: Bearer sk_test_free_1\r\n";

    private RawHttp.Response refused(String request, int status) {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send(request);
            RawHttp.Response r = c.read();
            assertThat(r.status()).as(request).isEqualTo(status);
            assertThat(r.header("content-type")).isEqualTo("application/problem+json");
            assertThat(r.header("cache-control")).isEqualTo("no-store");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByPeer()).isTrue();
            return r;
        } finally {
            assertThat(upstream.requests()).as("reached the upstream: " + request).isZero();
        }
    }

    @Test
    void anHttp11RequestWithoutHostIs400() {
        // RFC 9112 §3.2: a server MUST respond 400 to an HTTP/1.1 request without Host
        RawHttp.Response r = refused("GET /v1/quotes HTTP/1.1\r\n" + KEY + "\r\n", 400);
        assertThat(r.body()).contains("needs a Host field");
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"bad_host\"} 1.0");
    }

    @Test
    void twoHostFieldsAre400() {
        RawHttp.Response r = refused("GET /v1/quotes HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n" + KEY
                + "\r\n", 400);
        assertThat(r.body()).contains("more than one Host field");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a.example, b.example", "a.example/path", "user@a.example", "a\"b"})
    void anInvalidHostValueIs400(String host) {
        refused("GET /v1/quotes HTTP/1.1\r\nHost: " + host + "\r\n" + KEY + "\r\n", 400);
    }

    @Test
    void anHttp10RequestWithoutHostIsProxied() {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes HTTP/1.0\r\n" + KEY + "\r\n");
            assertThat(c.read().status()).isEqualTo(200);
        }
        assertThat(upstream.requests()).isEqualTo(1);
    }

    @Test
    void aTransferCodingTheEdgeCannotDecodeIs501() {
        // RFC 9112 §6.1: a server that receives a transfer coding it does not understand SHOULD answer 501
        RawHttp.Response r = refused("POST /v1/labels HTTP/1.1\r\nHost: edge\r\n" + KEY
                + "Transfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 501);
        assertThat(r.body()).contains("\"status\":501", "transfer_coding_not_implemented", "\\\"gzip\\\"");
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"transfer_coding\"} 1.0");
    }

    @Test
    void theCodingsSplitOverTwoLinesAreCheckedToo() {
        refused("POST /v1/labels HTTP/1.1\r\nHost: edge\r\n" + KEY
                + "Transfer-Encoding: deflate\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 501);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        // RFC 9112 §6.3: Transfer-Encoding with Content-Length (the classic CL.TE / TE.CL desync)
        "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n",
        // RFC 9112 §6.3: chunked is not the final coding
        "Transfer-Encoding: chunked, gzip\r\n",
        // RFC 9112 §6.1: chunked applied twice
        "Transfer-Encoding: chunked, chunked\r\n",
        // RFC 9112 §5.1: whitespace between the field name and the colon
        "Transfer-Encoding : chunked\r\n",
        // RFC 9110 §8.6: two different Content-Length values
        "Content-Length: 2\r\nContent-Length: 3\r\n"})
    void smugglingShapesRefusedByNettysDecoderAre400AndClose(String framing) {
        refused("POST /v1/labels HTTP/1.1\r\nHost: edge\r\n" + KEY + framing + "\r\n2\r\n{}\r\n0\r\n\r\n", 400);
    }

    @Test
    void transferEncodingInHttp10Is400() {
        // RFC 9112 §6.1: Transfer-Encoding in an HTTP/1.0 request: the framing is faulty
        refused("POST /v1/labels HTTP/1.0\r\n" + KEY + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 400);
    }

    @Test
    void anObsFoldIsReplacedBySpaceBeforeTheFieldIsForwarded() {
        // RFC 9112 §5.2: a server either rejects obs-fold or replaces it with SP; Netty replaces it, so the
        // upstream sees one line and nothing can be smuggled in the continuation
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\n" + KEY + "X-Folded: first\r\n second\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
        }
        assertThat(upstream.seen().get(0).headers().get("X-folded")).containsExactly("first second");
    }
}
