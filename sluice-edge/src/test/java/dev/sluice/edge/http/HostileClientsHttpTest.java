package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The availability and safety bounds of SPEC §3.1 and §3.9, each through the public port over loopback: a body dripped a
 * byte at a time, a client that never reads, a flood of connections, paths spelled to dodge a route's cost,
 * forwarding fields made up by the client, a broken chunked body and an HTTP version that does not exist.
 */
@ExtendWith(NoLeaks.class)
class HostileClientsHttpTest {

    private static final String FREE = "sk_test_free_1";

    private static Edges edge(TestUpstream upstream, String extra) {
        return Edges.start(EdgeConfig.parse("test.yaml", Edges.SHIPLANE + extra), upstream.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z"));
    }

    // ---- defect 1: a drip that the idle timer never catches ---------------------------------------------

    @Test
    @Tag("slow")
    @Timeout(30)
    void aBodyDrippedFasterThanTheIdleTimeoutButBelowTheMinimumRateIs408() {
        // one byte every 400 ms restarts a 2 s idle timer for ever; 2.5 bytes/s is far below the 240 bytes/s
        // the edge needs by default, measured over 5 s windows
        ScheduledExecutorService drip = Executors.newSingleThreadScheduledExecutor();
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = edge(upstream, "listen: { body-idle-timeout: 2s }\n");
                RawHttp c = new RawHttp(edge.server.port())) {
            c.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nContent-Length: 10000000\r\n\r\n");
            drip.scheduleAtFixedRate(() -> {
                try {
                    c.send("x");
                } catch (RuntimeException e) {
                    // the edge answered and closed
                }
            }, 0, 400, TimeUnit.MILLISECONDS);
            long start = System.nanoTime();
            RawHttp.Response r = c.read();
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertThat(r.status()).isEqualTo(408);
            assertThat(r.body()).contains("request_timeout", "below the 240 bytes/s");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(tookMillis).as("cut at the end of the first 5 s window").isBetween(4_000L, 9_000L);
            await("the slot is freed").atMost(Duration.ofSeconds(5))
                    .until(() -> edge.server.shedder().inFlight() == 0);
            assertThat(edge.metrics()).contains("sluice_edge_client_stalls_total{route=\"POST /v1/labels\"} 1.0");
        } finally {
            drip.shutdownNow();
        }
    }

    @Test
    @Tag("slow")
    @Timeout(30)
    void aBodyAtTheMinimumRateIsNotCut() throws Exception {
        // 300 bytes every 500 ms (600 bytes/s) for 3 s against min-body-rate 200 over 1 s windows: never cut
        byte[] chunk = "y".repeat(300).getBytes(StandardCharsets.US_ASCII);
        int chunks = 6;
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = edge(upstream, "listen: { min-body-rate: 200, min-body-rate-window: 1s }\n");
                RawHttp c = new RawHttp(edge.server.port())) {
            c.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nContent-Length: " + chunks * chunk.length + "\r\n\r\n");
            for (int i = 0; i < chunks; i++) {
                Thread.sleep(500); // real time: the edge measures the body's rate on its own clock
                c.send(chunk);
            }
            RawHttp.Response r = c.read();

            assertThat(r.status()).isEqualTo(200);
            assertThat(upstream.seen()).singleElement().extracting(TestUpstream.Seen::bodyBytes)
                    .isEqualTo((long) chunks * chunk.length);
        }
    }

    // ---- defect 2: a client that never reads ---------------------------------------------------------------

    @Test
    @Tag("slow")
    @Timeout(30)
    void aClientThatNeverReadsItsAnswerIsClosedAfterTheWriteTimeoutAndFreesItsSlot() throws Exception {
        byte[] big = new byte[48 << 20]; // more than every socket buffer between the upstream and the client
        try (TestUpstream upstream = new TestUpstream().reply("/v1/quotes",
                new TestUpstream.Reply(200, Map.of("Content-Type", "application/octet-stream"), big));
                Edges edge = edge(upstream, "listen: { write-timeout: 1s }\n");
                Socket client = new Socket("127.0.0.1", edge.server.port())) {
            client.setReceiveBufferSize(64 * 1024);
            client.getOutputStream().write(("GET /v1/quotes HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            await("the request is in flight").atMost(Duration.ofSeconds(5))
                    .until(() -> edge.server.shedder().inFlight() == 1);
            // never reads: the edge's writes stop, its channel stays unwritable

            await("the write timeout frees the shedder slot").atMost(Duration.ofSeconds(10))
                    .until(() -> edge.server.shedder().inFlight() == 0);
            assertThat(edge.metrics()).contains("sluice_edge_connection_errors_total{kind=\"write_timeout\"} 1.0");
            assertThat(closedAfterDraining(client)).isTrue();
        }
    }

    /** Reads and drops what the edge had sent; true when the stream then ends (the edge closed it). */
    private static boolean closedAfterDraining(Socket s) {
        try {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            byte[] buf = new byte[1 << 16];
            while (in.read(buf) >= 0) {
                // drain
            }
            return true;
        } catch (IOException e) {
            return true; // reset: closed as well
        }
    }

    // ---- defect 4: connections beyond the global cap --------------------------------------------------------

    @Test
    void aConnectionBeyondMaxConnectionsGets503AndTheOthersAreServed() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = edge(upstream, "listen: { max-connections: 3 }\n")) {
            List<RawHttp> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    RawHttp c = new RawHttp(edge.server.port());
                    held.add(c);
                    assertThat(c.send(get("/v1/quotes")).read().status()).isEqualTo(200);
                }
                try (RawHttp fourth = new RawHttp(edge.server.port())) {
                    RawHttp.Response r = fourth.read(); // answered at accept, before any request

                    assertThat(r.status()).isEqualTo(503);
                    assertThat(r.header("retry-after")).isEqualTo("1");
                    assertThat(r.header("connection")).isEqualTo("close");
                    assertThat(r.header("cache-control")).isEqualTo("no-store");
                    assertThat(fourth.closedByPeer()).isTrue();
                }
                assertThat(held.get(0).send(get("/v1/quotes")).read().status()).isEqualTo(200);
                held.remove(0).close();
                await("a place freed is taken by a new connection").atMost(Duration.ofSeconds(5))
                        .until(() -> {
                            try (RawHttp next = new RawHttp(edge.server.port())) {
                                return next.send(get("/v1/quotes")).read().status() == 200;
                            } catch (RuntimeException e) {
                                return false;
                            }
                        });
                assertThat(edge.metrics())
                        .contains("sluice_edge_rejected_connections_total{reason=\"max_connections\"}");
            } finally {
                held.forEach(RawHttp::close);
            }
        }
    }

    private static String get(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE + "\r\n\r\n";
    }

    // ---- defect 6: the path a route and its cost are decided on -------------------------------------------

    @Test
    void spellingsOfTheBatchPathAreTheBatchRouteAtItsCostAndReachTheUpstreamNormalised() {
        // labels:batch costs 10 of the free plan's burst of 20 (Edges.SHIPLANE); each spelling is charged 10
        List<String> spellings = List.of("/v1//labels:batch", "/v1/labels%3Abatch", "/v1/x/../labels:batch",
                "/v1/./labels%3abatch", "/v1/%6Cabels:batch");
        for (String spelling : spellings) {
            try (TestUpstream upstream = new TestUpstream();
                    Edges edge = edge(upstream, "");
                    RawHttp c = new RawHttp(edge.server.port())) {
                RawHttp.Response r = c.send("POST " + spelling + "?dry=1 HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer "
                        + FREE + "\r\nContent-Length: 2\r\n\r\n{}").read();

                assertThat(r.status()).as(spelling).isEqualTo(200);
                assertThat(r.header("ratelimit")).as(spelling).startsWith("\"burst\";r=10;");
                assertThat(upstream.seen()).as(spelling).singleElement()
                        .extracting(TestUpstream.Seen::path).isEqualTo("/v1/labels:batch");
            }
        }
    }

    @Test
    void controlBytesAndEncodedSlashesInTheTargetAre400() {
        try (TestUpstream upstream = new TestUpstream(); Edges edge = edge(upstream, "")) {
            for (String target : List.of("/v1/quotes%00", "/v1/quo\u0001tes", "/v1/quotes?x=\u0007",
                    "/v1/labels%2F..%2Fquotes", "/v1/labels%5cx", "/v1/quotes%zz", "/v1\\quotes")) {
                try (RawHttp c = new RawHttp(edge.server.port())) {
                    RawHttp.Response r = c.send(get(target)).read();

                    assertThat(r.status()).as(target).isEqualTo(400);
                    assertThat(r.body()).as(target).contains("bad_request");
                }
            }
            assertThat(upstream.requests()).isZero();
            assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"bad_target\"} 7.0");
        }
    }

    // ---- defect 7: forwarding fields --------------------------------------------------------------------

    private static final String SPOOFED = "X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.example\r\n"
            + "X-Forwarded-For: 203.0.113.66\r\nForwarded: for=203.0.113.66;proto=https\r\nX-Real-IP: 203.0.113.66\r\n";

    @Test
    void aClientsOwnForwardingFieldsAreReplacedByTheEdgesOverHttp1() {
        try (TestUpstream upstream = new TestUpstream(); Edges edge = edge(upstream, "");
                RawHttp c = new RawHttp(edge.server.port())) {
            assertThat(c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge.example\r\nAuthorization: Bearer " + FREE
                    + "\r\n" + SPOOFED + "\r\n").read().status()).isEqualTo(200);

            TestUpstream.Seen seen = upstream.seen().get(0);
            assertThat(seen.header("x-forwarded-proto")).isEqualTo("http");
            assertThat(seen.header("x-forwarded-host")).isEqualTo("edge.example");
            assertThat(seen.header("x-forwarded-for")).isEqualTo("127.0.0.1");
            assertThat(seen.header("forwarded")).isNull();
            assertThat(seen.header("x-real-ip")).isNull();
        }
    }

    @Test
    void aClientsOwnForwardingFieldsAreReplacedByTheEdgesOverHttp2() {
        try (TestUpstream upstream = new TestUpstream(); Edges edge = edge(upstream, "");
                H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.request("GET", "/v1/quotes", new DefaultHttp2Headers()
                    .add("authorization", "Bearer " + FREE).add("x-forwarded-proto", "https")
                    .add("x-forwarded-host", "evil.example").add("forwarded", "for=203.0.113.66"), true).await();

            assertThat(r.status()).isEqualTo(200);
            TestUpstream.Seen seen = upstream.seen().get(0);
            assertThat(seen.header("x-forwarded-proto")).isEqualTo("http");
            assertThat(seen.header("x-forwarded-host")).isEqualTo("localhost"); // the request's :authority
            assertThat(seen.header("x-forwarded-for")).isEqualTo("127.0.0.1");
            assertThat(seen.header("forwarded")).isNull();
        }
    }

    @Test
    void aTrustedProxysForwardingFieldsArePassedOnWithThePeerAppended() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = edge(upstream, "listen: { trusted-proxies: [10.0.0.0/8, 127.0.0.1] }\n");
                RawHttp c = new RawHttp(edge.server.port())) {
            assertThat(c.send("GET /v1/quotes HTTP/1.1\r\nHost: edge.example\r\nAuthorization: Bearer " + FREE
                    + "\r\n" + SPOOFED + "\r\n").read().status()).isEqualTo(200);

            TestUpstream.Seen seen = upstream.seen().get(0);
            assertThat(seen.header("x-forwarded-proto")).isEqualTo("https");
            assertThat(seen.header("x-forwarded-host")).isEqualTo("evil.example");
            assertThat(seen.header("x-forwarded-for")).isEqualTo("203.0.113.66, 127.0.0.1");
            assertThat(seen.header("forwarded")).isEqualTo("for=203.0.113.66;proto=https");
        }
    }

    // ---- defect 8: a broken chunked body, a version that does not exist -----------------------------------

    @Test
    void aBrokenChunkedBodyOnAnAdmittedRequestIs400AndCloses() {
        try (TestUpstream upstream = new TestUpstream(); Edges edge = edge(upstream, "");
                RawHttp c = new RawHttp(edge.server.port())) {
            RawHttp.Response r = c.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
                    + "\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nzz-not-a-size\r\n").read();

            assertThat(r.status()).isEqualTo(400);
            assertThat(r.body()).contains("bad_request", "chunked");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(r.header("ratelimit")).startsWith("\"burst\";r=19;");
            assertThat(c.closedByPeer()).isTrue();
        }
    }

    @Test
    void anHttpVersionOtherThanOneIsRefusedWith505() {
        try (TestUpstream upstream = new TestUpstream(); Edges edge = edge(upstream, "")) {
            for (String version : List.of("HTTP/9.9", "HTTP/2.0", "HTTP/0.9")) {
                try (RawHttp c = new RawHttp(edge.server.port())) {
                    RawHttp.Response r = c.send("GET /v1/quotes " + version + "\r\nHost: edge\r\nAuthorization: Bearer "
                            + FREE + "\r\n\r\n").read();

                    assertThat(r.status()).as(version).isEqualTo(505);
                    assertThat(r.body()).as(version).contains("http_version_not_supported");
                }
            }
            assertThat(upstream.requests()).isZero();
        }
    }
}
