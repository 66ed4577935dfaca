package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.FixedUpstream;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.LeakWatch;
import dev.sluice.edge.testing.TailWatch;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Errors a client causes (a connection reset, an HTTP/2 rapid-reset flood) are handled at the end of every
 * pipeline the edge builds: counted in {@code sluice_edge_connection_errors_total{kind}} and logged at debug,
 * never left to Netty's pipeline tail, which logs a warning with a stack trace for each.
 */
class ConnectionErrorsHttpTest {

    private TestUpstream upstream;
    private Edges edge;
    private List<String> tailWarningsBefore;

    @BeforeEach
    void start() {
        upstream = new TestUpstream();
        edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z");
        tailWarningsBefore = TailWatch.edgeWarnings();
    }

    @AfterEach
    void stop() {
        edge.close();
        upstream.close();
    }

    @AfterAll
    static void noLeaks() {
        LeakWatch.assertNoLeaks();
    }

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
}
