package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.FixedUpstream;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The upstream's response timeout starts when the request body has been sent, so an upload slower than it
 * is not cut while it moves; a body that stops moving for {@code listen.body-idle-timeout} is the client's
 * fault, 408 (RFC 9110 §15.5.9), counted as a client stall, with the upstream connection discarded; an
 * upstream that stops reading the body is the upstream's, 504.
 */
@ExtendWith(NoLeaks.class)
class UploadTimeoutHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final String POST_HEAD = "POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + FREE
            + "\r\nContent-Type: application/octet-stream\r\n";

    private static Edges edge(URI upstream, String listenAndUpstream) {
        return Edges.start(EdgeConfig.parse("test.yaml", Edges.SHIPLANE + listenAndUpstream), upstream,
                ManualTimeSource.at("2026-11-30T12:00:00Z"));
    }

    @Test
    void anUploadSlowerThanTheResponseTimeoutIsNotCutWhileItMoves() throws Exception {
        // 8 chunks of 500 bytes, 100 ms apart: the upload takes 4x the 200 ms response timeout; before, the
        // timeout ran from the request head and the client got 504 after the first 1,000 bytes
        int chunks = 8;
        byte[] chunk = "x".repeat(500).getBytes(StandardCharsets.US_ASCII);
        ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = edge(upstream.url(), """
                        listen: { body-idle-timeout: 2s }
                        upstream: { response-timeout: 200ms }
                        """);
                RawHttp c = new RawHttp(edge.server.port())) {
            c.send(POST_HEAD + "Content-Length: " + chunks * chunk.length + "\r\n\r\n");
            for (int i = 0; i < chunks; i++) {
                pacer.schedule(() -> c.send(chunk), 100L * (i + 1), TimeUnit.MILLISECONDS);
            }
            RawHttp.Response r = c.read();

            assertThat(r.status()).isEqualTo(200);
            assertThat(upstream.seen()).singleElement().extracting(TestUpstream.Seen::bodyBytes)
                    .isEqualTo((long) chunks * chunk.length);
            assertThat(edge.metrics()).doesNotContain("class=\"timeout\"").doesNotContain("client_stalls_total{");
        } finally {
            pacer.shutdownNow();
        }
    }

    @Test
    void aBodyThatStallsAfterAdmissionIs408ACountedClientStallAndTheUpstreamConnectionIsDiscarded() {
        try (FixedUpstream upstream = FixedUpstream.silent();
                Edges edge = edge(upstream.url(), "listen: { body-idle-timeout: 300ms }\n");
                RawHttp c = new RawHttp(edge.server.port())) {
            c.send(POST_HEAD + "Content-Length: 4000000\r\n\r\n" + "x".repeat(1_000)); // then nothing
            RawHttp.Response r = c.read();

            assertThat(r.status()).isEqualTo(408);
            assertThat(r.header("content-type")).isEqualTo("application/problem+json");
            assertThat(r.body()).contains("request_timeout", "The request body stalled");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(r.header("ratelimit")).isEqualTo("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
            assertThat(c.closedByPeer()).isTrue();
            // the upstream connection, holding half a request, was closed rather than pooled
            await("the edge closes the upstream connection").atMost(Duration.ofSeconds(5))
                    .until(() -> upstream.connectionsClosedByEdge() == 1);
            String metrics = edge.metrics();
            assertThat(metrics).contains("sluice_edge_client_stalls_total{route=\"POST /v1/labels\"} 1.0")
                    .doesNotContain("class=\"timeout\"");
        }
    }

    @Test
    void anHttp2StreamWhoseBodyStallsGets408AndIsReset() {
        try (FixedUpstream upstream = FixedUpstream.silent();
                Edges edge = edge(upstream.url(), "listen: { body-idle-timeout: 300ms }\n");
                H2Client h2 = new H2Client(edge.server.port())) {
            H2Client.Result r = h2.request("POST", "/v1/labels", new DefaultHttp2Headers()
                    .add("authorization", "Bearer " + FREE).add("content-length", "4000000"), false)
                    .data("x".repeat(1_000).getBytes(StandardCharsets.US_ASCII), false)
                    .await();

            assertThat(r.status()).isEqualTo(408);
            assertThat(r.body()).contains("request_timeout");
            assertThat(r.resetCode()).isEqualTo(0L); // NO_ERROR: the answer is complete, the body is not wanted
            assertThat(edge.metrics()).contains("sluice_edge_client_stalls_total{route=\"POST /v1/labels\"} 1.0");
        }
    }

    @Test
    void anUpstreamThatStopsReadingTheBodyIs504NotAClientStall() throws Exception {
        List<Socket> held = new CopyOnWriteArrayList<>();
        try (ServerSocket deaf = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) {
                        held.add(deaf.accept()); // accepted, never read
                    }
                } catch (IOException e) {
                    // closed
                }
            });
            long bodyBytes = 256L << 20; // far more than the socket buffers between the client and the upstream
            try (Edges edge = edge(URI.create("http://127.0.0.1:" + deaf.getLocalPort()),
                    "listen: { body-idle-timeout: 300ms }\n");
                    Socket client = new Socket("127.0.0.1", edge.server.port())) {
                client.setSoTimeout(10_000);
                OutputStream out = client.getOutputStream();
                out.write((POST_HEAD + "Content-Length: " + bodyBytes + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                Thread writer = Thread.ofPlatform().daemon().start(() -> {
                    byte[] block = new byte[64 * 1024];
                    try {
                        for (long sent = 0; sent < bodyBytes; sent += block.length) {
                            out.write(block); // blocks once every buffer is full; fails when the edge closes
                        }
                    } catch (IOException e) {
                        // the edge answered and closed
                    }
                });
                String status = new String(client.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);

                assertThat(status).isEqualTo("HTTP/1.1 504");
                assertThat(edge.metrics()).contains("class=\"timeout\",route=\"POST /v1/labels\"} 1.0")
                        .doesNotContain("client_stalls_total{");
                client.close();
                writer.join(10_000);
            } finally {
                acceptor.interrupt();
            }
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
