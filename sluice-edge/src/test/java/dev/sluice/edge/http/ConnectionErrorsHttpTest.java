package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.FixedUpstream;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TailWatch;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Errors a client causes (a connection reset, an HTTP/2 rapid-reset flood) are handled at the end of every
 * pipeline the edge builds: counted in {@code sluice_edge_connection_errors_total{kind}} and logged at debug,
 * never left to Netty's pipeline tail, which logs a warning with a stack trace for each.
 */
@ExtendWith(NoLeaks.class)
class ConnectionErrorsHttpTest {

    @AutoClose
    private final TestUpstream upstream = new TestUpstream();
    @AutoClose
    private final Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z");
    private final List<String> tailWarningsBefore = TailWatch.edgeWarnings();

    private void assertCountedAndNoTailWarning(String kind) {
        String line = "sluice_edge_connection_errors_total{kind=\"" + kind + "\"}";
        await("counted as " + kind).atMost(Duration.ofSeconds(5)).until(() -> edge.metrics().contains(line));
        assertThat(TailWatch.edgeWarnings()).isEqualTo(tailWarningsBefore);
    }

    /** Closes {@code s} with a reset (RST) instead of an orderly close (FIN). */
    private static void reset(Socket s) throws IOException {
        s.setSoLinger(true, 0);
        s.close();
    }

    @Test
    void aResetBeforeTheProtocolIsKnownIsCountedNotLoggedAsATailWarning() throws IOException {
        Socket s = new Socket("127.0.0.1", edge.server.port());
        s.getOutputStream().write("PRI * HT".getBytes(StandardCharsets.US_ASCII)); // a prefix of the h2 preface
        s.getOutputStream().flush();
        reset(s);

        assertCountedAndNoTailWarning("io");
    }

    @Test
    void aResetOfAnHttp11ConnectionMidBodyIsCounted() throws IOException {
        Socket s = new Socket("127.0.0.1", edge.server.port());
        s.getOutputStream().write(("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer sk_test_free_1\r\n"
                + "Content-Length: 100000\r\n\r\n" + "x".repeat(1_000)).getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        await("the request was admitted").atMost(Duration.ofSeconds(5))
                .until(() -> edge.server.registry().find("sluice.edge.decisions").counters().size() > 0);
        reset(s);

        assertCountedAndNoTailWarning("io");
    }

    @Test
    void aResetOfAnHttp2ConnectionIsCountedNotLoggedAsATailWarning() throws IOException {
        Socket s = new Socket("127.0.0.1", edge.server.port());
        s.setSoTimeout(10_000);
        s.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().write(new byte[] {0, 0, 0, 0x4, 0, 0, 0, 0, 0}); // SETTINGS, empty
        s.getOutputStream().flush();
        // read until the edge acknowledged our SETTINGS: it has nothing more to write, only reads, so the
        // reset reaches it as a read error (a write into a reset connection fails its promise instead)
        InputStream in = s.getInputStream();
        boolean acknowledged = false;
        while (!acknowledged) {
            byte[] header = in.readNBytes(9);
            assertThat(header).hasSize(9);
            int length = ((header[0] & 0xff) << 16) | ((header[1] & 0xff) << 8) | (header[2] & 0xff);
            in.readNBytes(length);
            acknowledged = header[3] == 0x4 && (header[4] & 0x1) != 0;
        }
        reset(s);

        assertCountedAndNoTailWarning("io");
    }

    @Test
    void anHttp2RapidResetFloodIsCountedAsEnhanceYourCalmAndLogsNoTailWarning() {
        // the streams must still be open at the edge when their RST_STREAM arrives (Netty counts only those):
        // admitted requests to an upstream that never answers
        EdgeConfig config = EdgeConfig.parse("test.yaml", """
                plans:
                  roomy:
                    policies:
                      - { name: burst, kind: burst, q: 100000, w: 1 }
                keys: { sk_flood: roomy }
                """);
        try (FixedUpstream silent = FixedUpstream.silent();
                Edges flooded = Edges.start(config, silent.url(), ManualTimeSource.at("2026-11-30T12:00:00Z"));
                H2Client h2 = new H2Client(flooded.server.port())) {
            // Netty refuses more than 200 RST_STREAM in 30 s (CVE-2023-44487) with ENHANCE_YOUR_CALM
            Http2Headers key = new DefaultHttp2Headers().add("authorization", "Bearer sk_flood");
            try {
                for (int i = 0; i < 300; i++) {
                    h2.request("GET", "/v1/quotes", key, true).cancel();
                }
            } catch (Exception connectionGone) { // ClosedChannelException, thrown unchecked by Netty
                // the edge ended the connection mid-flood
            }
            String line = "sluice_edge_connection_errors_total{kind=\"http2_enhance_your_calm\"} 1.0";
            await("the flood is counted").atMost(Duration.ofSeconds(5))
                    .until(() -> flooded.metrics().contains(line));
        }
        assertThat(TailWatch.edgeWarnings()).isEqualTo(tailWarningsBefore);
    }

    /**
     * RFC 9113 §5.1.2: a stream beyond SETTINGS_MAX_CONCURRENT_STREAMS (256 at the edge) is refused with
     * REFUSED_STREAM, unprocessed. Those resets are the edge's own, not a client's rapid reset: 1,000 streams
     * opened in one write get 744 refusals and no GOAWAY, and the connection then serves the next stream.
     */
    @Test
    void aThousandStreamsOpenedAtOnceAreRefusedBeyondTheLimitWithoutGoAway() throws IOException {
        try (Socket s = new Socket("127.0.0.1", edge.server.port())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(frame(0x4, 0, 0, new byte[0])); // SETTINGS, empty
            // a connection window large enough for every answer: answered streams close, and free their place
            out.write(frame(0x8, 0, 0, ByteBuffer.allocate(4).putInt(0x4000_0000).array()));
            out.flush();
            // the edge's limit applies once its SETTINGS are acknowledged (RFC 9113 §6.5.3)
            int[] f = readFrame(in);
            while (!(f[0] == 0x4 && (f[1] & 0x1) == 0)) {
                f = readFrame(in);
            }
            out.write(frame(0x4, 0x1, 0, new byte[0]));
            java.io.ByteArrayOutputStream burst = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < 1_000; i++) {
                burst.writeBytes(frame(0x1, 0x5, 2 * i + 1, GET_SLASH)); // HEADERS, END_STREAM | END_HEADERS
            }
            out.write(burst.toByteArray());
            out.flush();
            int refused = 0;
            while (refused < 744) {
                f = readFrame(in);
                assertThat(f[0]).as("GOAWAY (error %d) after %d refusals", f[3], refused).isNotEqualTo(0x7);
                if (f[0] == 0x3 && f[3] == 0x7) { // RST_STREAM REFUSED_STREAM
                    refused++;
                }
            }
            out.write(frame(0x1, 0x5, 2_001, GET_SLASH));
            out.flush();
            do {
                f = readFrame(in);
                assertThat(f[0]).as("GOAWAY (error %d)", f[3]).isNotEqualTo(0x7);
            } while (!(f[0] == 0x1 && f[2] == 2_001));
        }
        assertThat(edge.metrics()).doesNotContain("http2_enhance_your_calm");
    }

    /** HPACK (RFC 7541 Appendix A, static table): :method GET, :scheme http, :path /, :authority edge. */
    private static final byte[] GET_SLASH = {(byte) 0x82, (byte) 0x86, (byte) 0x84, 0x01, 0x04, 'e', 'd', 'g', 'e'};

    private static byte[] frame(int type, int flags, int streamId, byte[] payload) {
        return ByteBuffer.allocate(9 + payload.length).put((byte) (payload.length >>> 16))
                .put((byte) (payload.length >>> 8)).put((byte) payload.length).put((byte) type).put((byte) flags)
                .putInt(streamId).put(payload).array();
    }

    /** One frame: its type, flags, stream id, and the first 32-bit word of its payload (an error code). */
    private static int[] readFrame(DataInputStream in) throws IOException {
        int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
        int type = in.readUnsignedByte();
        int flags = in.readUnsignedByte();
        int stream = in.readInt() & 0x7fff_ffff;
        byte[] payload = in.readNBytes(length);
        int word = 0;
        if (type == 0x3 && length >= 4) {
            word = ByteBuffer.wrap(payload).getInt();
        } else if (type == 0x7 && length >= 8) {
            word = ByteBuffer.wrap(payload).getInt(4);
        }
        return new int[] {type, flags, stream, word};
    }
}
