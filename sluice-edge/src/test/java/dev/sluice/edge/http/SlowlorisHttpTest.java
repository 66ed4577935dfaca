package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Slowloris: a request head (HTTP/2: a header block, or the connection preface) sent a byte at a time must
 * still be complete within {@code listen.request-head-timeout} of its first byte (bytes do not extend it, as
 * they do the idle timeout): HTTP/1.1 gets 408 and a close, HTTP/2 a GOAWAY and a close; and one client
 * address holds at most {@code listen.max-connections-per-ip} connections.
 */
@ExtendWith(NoLeaks.class)
class SlowlorisHttpTest {

    private static final String KEY = "Authorization: Bearer sk_test_free_1\r\n";
    /** a byte every 100 ms keeps the 60 s idle timeout from ever firing */
    private static final long TRICKLE_MILLIS = 100;

    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    @AutoClose
    private final Edges edge = Edges.start(Edges.SHIPLANE + """
            listen: { request-head-timeout: 300ms, idle-timeout: 60s, max-connections-per-ip: 3 }
            """, upstream, "2026-11-30T12:00:00Z");
    @AutoClose("shutdownNow")
    private final ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();

    /** Sends {@code bytes} one at a time, {@link #TRICKLE_MILLIS} apart, until they end or the edge closes. */
    private void trickle(OutputStream out, byte[] bytes) {
        for (int i = 0; i < bytes.length; i++) {
            byte b = bytes[i];
            pacer.schedule(() -> {
                try {
                    out.write(b);
                    out.flush();
                } catch (IOException e) {
                    // the edge closed the connection: the point of the test
                }
            }, TRICKLE_MILLIS * (i + 1), TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void anHttp11HeadSentAByteAtATimeIs408AtTheHeadDeadline() throws IOException {
        try (Socket s = new Socket("127.0.0.1", edge.server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET /v1/quotes HTTP/1.1\r\nHo".getBytes(StandardCharsets.US_ASCII));
            trickle(s.getOutputStream(), ("st: edge\r\n" + KEY + "X-Padding: " + "p".repeat(100) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));

            String answer = new String(readUntilClosed(s.getInputStream()), StandardCharsets.US_ASCII);

            assertThat(answer).startsWith("HTTP/1.1 408 Request Timeout").contains("connection: close",
                    "application/problem+json", "request_timeout", "The request head did not arrive within 300 ms.");
        }
        assertThat(upstream.requests()).isZero();
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"request_head_timeout\"} 1.0");
    }

    @Test
    void aKeptAliveConnectionIdleBetweenRequestsLongerThanTheHeadDeadlineStillServes() throws Exception {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            String get = "GET /v1/quotes HTTP/1.1\r\nHost: edge\r\n" + KEY + "\r\n";
            assertThat(c.send(get).read().status()).isEqualTo(200);
            // the next request comes 3 head deadlines later, whole: the idle timeout governs the wait
            pacer.schedule(() -> c.send(get), 900, TimeUnit.MILLISECONDS).get(5, TimeUnit.SECONDS);
            assertThat(c.read().status()).isEqualTo(200);
        }
        assertThat(edge.metrics()).doesNotContain("request_head_timeout");
    }

    @Test
    void anHttp2HeaderBlockThatNeverCompletesEndsInGoAwayAndAClose() throws IOException {
        try (Socket s = new Socket("127.0.0.1", edge.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            ByteArrayOutputStream start = new ByteArrayOutputStream();
            start.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            start.writeBytes(frameHeader(0, 0x4, 0, 0)); // SETTINGS, empty
            // HEADERS on stream 1 without END_HEADERS (:method GET, :scheme http, :path /), then a
            // CONTINUATION announcing 40 bytes that come one at a time
            start.writeBytes(frameHeader(3, 0x1, 0, 1));
            start.writeBytes(new byte[] {(byte) 0x82, (byte) 0x86, (byte) 0x84});
            start.writeBytes(frameHeader(40, 0x9, 0x4, 1));
            out.write(start.toByteArray());
            out.flush();
            byte[] literal = new byte[40];
            java.util.Arrays.fill(literal, (byte) 0x40);
            trickle(out, literal);

            List<Integer> frameTypes = frameTypes(s.getInputStream());

            assertThat(frameTypes).contains(0x7); // GOAWAY, then end of stream
        }
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"request_head_timeout\"} 1.0");
    }

    @Test
    void anHttp2PrefaceSentAByteAtATimeIsClosedAtTheHeadDeadline() throws IOException {
        try (Socket s = new Socket("127.0.0.1", edge.server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("PRI * HTTP".getBytes(StandardCharsets.US_ASCII));
            trickle(s.getOutputStream(), "/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));

            assertThat(closedByEdge(s.getInputStream())).isTrue(); // long before the idle timeout
        }
        assertThat(edge.metrics()).contains("sluice_edge_rejected_requests_total{reason=\"request_head_timeout\"} 1.0");
    }

    @Test
    void oneAddressHoldsAtMostItsConnectionCapAndGetsMoreWhenOneCloses() {
        String get = "GET /v1/quotes HTTP/1.1\r\nHost: edge\r\n" + KEY + "\r\n";
        List<RawHttp> held = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                RawHttp c = new RawHttp(edge.server.port());
                held.add(c);
                assertThat(c.send(get).read().status()).isEqualTo(200);
            }
            try (RawHttp fourth = new RawHttp(edge.server.port())) {
                assertThat(fourth.closedByPeer()).isTrue();
            }
            assertThat(edge.metrics()).contains("sluice_edge_rejected_connections_total{reason=\"per_ip_limit\"} 1.0");

            held.remove(0).close();
            await("a connection is served once one of the three closed").atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10)).until(() -> {
                        try (RawHttp again = new RawHttp(edge.server.port())) {
                            return again.send(get).read().status() == 200;
                        } catch (RuntimeException closedBeforeTheSlotCameBack) {
                            return false; // the close of the first connection is still being processed
                        }
                    });
        } finally {
            held.forEach(RawHttp::close);
        }
    }

    /**
     * What the edge sent until it closed the connection; a reset (the pacer's next byte hit the closed socket)
     * ends it too.
     */
    private static byte[] readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[4096];
        try {
            int n;
            while ((n = in.read(buf)) >= 0) {
                got.write(buf, 0, n);
            }
        } catch (java.net.SocketTimeoutException e) {
            throw e; // not closed within the socket timeout: the deadline did not work
        } catch (java.net.SocketException reset) {
            // closed
        }
        return got.toByteArray();
    }

    /** End of stream, or a reset (the edge closed with trickled bytes unread); false on a read timeout. */
    private static boolean closedByEdge(InputStream in) throws IOException {
        try {
            return in.read() < 0;
        } catch (java.net.SocketTimeoutException e) {
            return false;
        } catch (java.net.SocketException reset) {
            return true;
        }
    }

    private static byte[] frameHeader(int length, int type, int flags, int streamId) {
        return new byte[] {(byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, (byte) flags,
            (byte) (streamId >>> 24), (byte) (streamId >>> 16), (byte) (streamId >>> 8), (byte) streamId};
    }

    /** The types of the frames the server sent until it closed the connection. */
    private static List<Integer> frameTypes(InputStream in) throws IOException {
        byte[] all = readUntilClosed(in);
        List<Integer> types = new ArrayList<>();
        int i = 0;
        while (i + 9 <= all.length) {
            int length = ((all[i] & 0xff) << 16) | ((all[i + 1] & 0xff) << 8) | (all[i + 2] & 0xff);
            types.add(all[i + 3] & 0xff);
            i += 9 + length;
        }
        return types;
    }
}
