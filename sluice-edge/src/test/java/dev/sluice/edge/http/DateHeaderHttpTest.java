package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Captures;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.FixedUpstream;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every response the edge writes itself carries {@code Date} from the edge's clock (RFC 9110 §6.6.1), so a
 * client reading a reset or an HTTP-date has the server's "now" (SPEC §2.4); a proxied response keeps the
 * upstream's own {@code Date}, and gets the edge's when the upstream sent none.
 */
@ExtendWith(NoLeaks.class)
class DateHeaderHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String NOON = "Mon, 30 Nov 2026 12:00:00 GMT";
    private static final String UPSTREAM_DATE = "Sun, 06 Nov 1994 08:49:37 GMT";

    private static Edges edge(URI upstream, String extraYaml) {
        return Edges.start(EdgeConfig.parse("test.yaml", Edges.SHIPLANE + extraYaml), upstream,
                ManualTimeSource.at("2026-11-30T12:00:00Z"));
    }

    @Test
    void usage401And400CarryTheEdgeClocksDate() {
        try (FixedUpstream up = new FixedUpstream("HTTP/1.1 204 No Content\r\n\r\n");
                Edges edge = edge(up.url(), "")) {
            HttpResponse<String> usage = edge.get("/v1/usage", FREE);
            assertThat(usage.statusCode()).isEqualTo(200);
            assertThat(usage.headers().allValues("Date")).containsExactly(NOON);

            assertThat(edge.get("/v1/quotes", null).headers().allValues("Date")).containsExactly(NOON);

            edge.time.advance(Duration.ofMillis(1_500)); // the cached value follows the clock's second
            try (RawHttp c = new RawHttp(edge.server.port())) {
                c.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                        + "\r\nContent-Length: abc\r\n\r\n");
                RawHttp.Response r = c.read();
                assertThat(r.status()).isEqualTo(400);
                assertThat(r.headers().get("date")).containsExactly("Mon, 30 Nov 2026 12:00:01 GMT");
            }
        }
    }

    @Test
    void the429DateIsTheCapturesDateAt1840() {
        try (FixedUpstream up = new FixedUpstream("HTTP/1.1 204 No Content\r\n\r\n");
                Edges edge = edge(up.url(), "")) {
            edge.spend(FREE, 10_000);
            edge.advanceTo("2026-11-30T18:40:00Z");
            HttpResponse<String> r = edge.post("/v1/labels", FREE, "{}");
            assertThat(r.statusCode()).isEqualTo(429);
            assertThat(r.headers().allValues("Date"))
                    .containsExactly(Captures.read("429-daily-quota.http").header("Date"));
        }
    }

    @Test
    void aProxiedResponseKeepsTheUpstreamsDate() {
        try (FixedUpstream up = new FixedUpstream("HTTP/1.1 200 OK\r\nDate: " + UPSTREAM_DATE
                + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
                Edges edge = edge(up.url(), "")) {
            HttpResponse<String> r = edge.get("/v1/quotes", FREE);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().allValues("Date")).containsExactly(UPSTREAM_DATE);
        }
    }

    @Test
    void aProxiedResponseWithoutDateGetsTheEdgesOverBothProtocols() {
        try (FixedUpstream up = new FixedUpstream("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
                Edges edge = edge(up.url(), "")) {
            assertThat(edge.get("/v1/quotes", FREE).headers().allValues("Date")).containsExactly(NOON);
            try (H2Client h2 = new H2Client(edge.server.port())) {
                H2Client.Result r = h2.get("/v1/quotes", FREE);
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("date")).isEqualTo(NOON);
                assertThat(h2.get("/v1/quotes", null).header("date")).isEqualTo(NOON); // the 401 too
            }
        }
    }

    @Test
    void the502And504OfTheEdgeCarryItsDate() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        try (Edges edge = edge(URI.create("http://127.0.0.1:" + closedPort), "")) {
            HttpResponse<String> r = edge.get("/v1/quotes", FREE);
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(r.headers().allValues("Date")).containsExactly(NOON);
        }
        try (FixedUpstream silent = FixedUpstream.silent();
                Edges edge = edge(silent.url(), "upstream: { response-timeout: 200ms }\n")) {
            HttpResponse<String> r = edge.get("/v1/quotes", FREE);
            assertThat(r.statusCode()).isEqualTo(504);
            assertThat(r.headers().allValues("Date")).containsExactly(NOON);
        }
    }
}
