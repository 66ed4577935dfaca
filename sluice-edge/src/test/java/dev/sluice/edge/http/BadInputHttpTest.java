package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Hostile and broken requests get clear 4xx problem answers, never a stack trace, never limiter state
 * for an unknown key, and never reach the upstream.
 */
class BadInputHttpTest extends ShiplaneEdgeHttpTest {

    private static final String FREE = "sk_test_free_1";

    private int keysWithState() {
        return ((InMemoryLimiterStore) edge.server.store()).keyCount();
    }

    private static void assertCleanProblem(RawHttp.Response r, int status) {
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.header("content-type")).isEqualTo("application/problem+json");
        assertThat(r.body()).startsWith("{\"type\":").contains("\"status\":" + status)
                .doesNotContain("Exception").doesNotContain("\tat ").doesNotContain("io.netty");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer", "Bearer ", "Bearer two tokens", "Bearer sk\u00e9", "bearer\tsk"})
    void malformedAuthorizationIs401InvalidRequestAndCreatesNoState(String authorization) {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: " + authorization + "\r\n\r\n");
            RawHttp.Response r = c.read();
            assertCleanProblem(r, 401);
            assertThat(r.header("www-authenticate")).contains("invalid_request");
            assertThat(r.header("ratelimit")).isNull();
        }
        assertThat(keysWithState()).isZero();
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void twoAuthorizationFieldsAreMalformed() {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nAuthorization: Bearer sk_test_free_2\r\n\r\n");
            assertCleanProblem(c.read(), 401);
        }
        assertThat(keysWithState()).isZero();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-1", "abc", "99999999999999999999", "10, 20", "1e3", "0x10"})
    void absurdContentLengthIs400AndTheConnectionCloses(String contentLength) {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nContent-Length: " + contentLength + "\r\n\r\n{}");
            assertCleanProblem(c.read(), 400);
            assertThat(c.closedByPeer()).isTrue();
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void tooManyHeaderFieldsIs431() {
        StringBuilder req = new StringBuilder("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                + "\r\n");
        for (int i = 0; i < 200; i++) {
            req.append("X-Flood-").append(i).append(": 1\r\n");
        }
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send(req.append("\r\n").toString());
            assertCleanProblem(c.read(), 431);
            assertThat(c.closedByPeer()).isTrue();
        }
        assertThat(upstream.requests()).isZero();
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"too_many_headers\"} 1.0");
    }

    @Test
    void oversizedHeaderSectionIs431() {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nX-Big: " + "a".repeat(20_000) + "\r\n\r\n");
            assertCleanProblem(c.read(), 431);
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void oversizedRequestLineIs414() {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            c.send("GET /v1/quotes?q=" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: edge\r\n\r\n");
            assertCleanProblem(c.read(), 414);
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void http2HeaderFloodIs431ThenReset() {
        Http2Headers flood = new DefaultHttp2Headers().add("authorization", "Bearer " + FREE);
        for (int i = 0; i < 200; i++) {
            flood.add("x-flood-" + i, "1");
        }
        try (H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.request("GET", "/v1/quotes", flood, true).await();
            assertThat(r.status()).isEqualTo(431);
            assertThat(r.body()).doesNotContain("Exception");
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void tenThousandRandomKeysGetClear401sAndLeaveNoLimiterState() {
        // a key-guessing flood: pipelined on 10 connections, 1,000 requests each (seeded, reproducible)
        SplittableRandom random = new SplittableRandom(20261130L);
        int connections = 10;
        int perConnection = 1_000;
        int unauthorized = 0;
        for (int c = 0; c < connections; c++) {
            try (RawHttp client = new RawHttp(edge.server.port())) {
                StringBuilder batch = new StringBuilder(perConnection * 96);
                for (int i = 0; i < perConnection; i++) {
                    batch.append("GET /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer sk_live_")
                            .append(Long.toHexString(random.nextLong())).append("\r\n\r\n");
                }
                client.send(batch.toString());
                for (int i = 0; i < perConnection; i++) {
                    RawHttp.Response r = client.read();
                    if (r.status() == 401 && r.body().contains("The API key is not known.")) {
                        unauthorized++;
                    }
                }
            }
        }
        assertThat(unauthorized).isEqualTo(connections * perConnection);
        assertThat(keysWithState()).isZero();
        assertThat(upstream.requests()).isZero();
        assertThat(edge.metrics()).contains("outcome=\"unauthenticated\",route=\"* /**\"} 10000.0");
        // a real key still works at once
        assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(200);
    }
}
