package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.H2Client;
import dev.sluice.edge.testing.LeakWatch;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 19, defects 3 and 8 over h2c: one connection must not take the upstream pool of its event loop (streams
 * that never send their body, or never open their flow-control window), and the edge's own REFUSED_STREAMs
 * for streams over {@code SETTINGS_MAX_CONCURRENT_STREAMS} are not a client's rapid-reset flood.
 */
class Http2BoundsHttpTest {

    private static final String HEAVY = "sk_test_pro_1";
    private static final String OTHER = "sk_test_free_2";

    @AfterAll
    static void noLeaks() {
        LeakWatch.assertNoLeaks();
    }

    private static Edges edge(TestUpstream upstream, String extra) {
        return Edges.start(EdgeConfig.parse("test.yaml", Edges.SHIPLANE + extra), upstream.url(),
                ManualTimeSource.at("2026-11-30T12:00:00Z"));
    }

    /** Another tenant's POST /v1/labels (CRITICAL) over HTTP/1.1 on its own connection: its status. */
    private static int otherTenant(Edges edge) {
        try (RawHttp c = new RawHttp(edge.server.port())) {
            return c.send("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer " + OTHER
                    + "\r\nContent-Length: 2\r\n\r\n{}").read().status();
        }
    }

    @Test
    @Tag("slow")
    @Timeout(60)
    void streamsThatNeverSendTheirBodyHoldAtMostTheirConnectionsShareOfUpstreamConnections() {
        // 250 POST streams announcing 100 bytes, sending none; before, they took all 32 upstream connections of
        // the event loop (shedder_in_flight 32) and the other tenant got 504 and 503
        try (TestUpstream upstream = TestUpstream.unbounded();
                Edges edge = edge(upstream, "upstream: { connect-timeout: 5s }\n");
                H2Client h2 = new H2Client(edge.server.port())) {
            assertThat(otherTenant(edge)).isEqualTo(200); // the other tenant is active (the fair share counts it)
            for (int i = 0; i < 250; i++) { // the client itself keeps to the 256 concurrent streams the edge allows
                h2.request("POST", "/v1/labels", new DefaultHttp2Headers().add("authorization", "Bearer " + HEAVY)
                        .add("content-length", "100"), false);
            }
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 18; i++) {
                statuses.add(otherTenant(edge));
            }

            assertThat(statuses).as("the other tenant while the streams are held").containsOnly(200);
            assertThat(edge.server.shedder().inFlight()).as("the heavy key holds at most its fair share")
                    .isLessThanOrEqualTo(30);
        }
    }

    @Test
    @Tag("slow")
    @Timeout(60)
    void streamsOfAClientWithAZeroWindowHoldAtMostTheirConnectionsShareAndAreClosedAtTheWriteTimeout() {
        // each answer is larger than what Netty's flow controller may queue for a stream: the stream channel turns
        // unwritable and the upstream connection is held while the client takes nothing
        byte[] answer = new byte[1 << 20];
        try (TestUpstream upstream = TestUpstream.unbounded().replyWith(seen -> seen.path().startsWith("/v1/labels/")
                        ? new TestUpstream.Reply(200, java.util.Map.of(), answer) : TestUpstream.Reply.ok());
                Edges edge = edge(upstream, "listen: { write-timeout: 2s }\n");
                H2Client h2 = new H2Client(edge.server.port(), Http2Settings.defaultSettings().initialWindowSize(0))) {
            assertThat(otherTenant(edge)).isEqualTo(200);
            for (int i = 0; i < 50; i++) {
                h2.request("GET", "/v1/labels/" + i, new DefaultHttp2Headers()
                        .add("authorization", "Bearer " + HEAVY), true);
            }
            List<Integer> statuses = new ArrayList<>();
            for (int i = 0; i < 18; i++) {
                statuses.add(otherTenant(edge));
            }

            assertThat(statuses).as("before, 18 of these got 504").containsOnly(200);
            // the streams holding upstream connections are closed once they took no DATA for write-timeout
            dev.sluice.edge.testing.Await.until(() -> edge.metrics().contains(
                    "sluice_edge_connection_errors_total{kind=\"write_timeout\"}"), java.time.Duration.ofSeconds(10),
                    "write timeouts");
            assertThat(edge.metrics()).contains("sluice_edge_connection_errors_total{kind=\"write_timeout\"}");
        }
    }

    @Test
    @Timeout(60)
    void streamsOverTheConcurrencyLimitAreRefusedWithoutEndingTheConnection() throws Exception {
        // 1,000 requests at once on one connection: the edge refuses those over its 256 concurrent streams with
        // REFUSED_STREAM; before, those resets counted toward Netty's limit of 200 sent resets in 30 s and the
        // connection ended with GOAWAY ENHANCE_YOUR_CALM
        try (TestUpstream upstream = TestUpstream.unbounded(); Edges edge = edge(upstream, "");
                Socket s = new Socket("127.0.0.1", edge.server.port())) {
            s.setSoTimeout(3_000);
            OutputStream out = s.getOutputStream();
            ByteArrayOutputStream frames = new ByteArrayOutputStream();
            frames.writeBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            frame(frames, 0x4, 0, 0, new byte[0]); // SETTINGS, empty
            DefaultHttp2HeadersEncoder hpack = new DefaultHttp2HeadersEncoder();
            for (int i = 0; i < 1_000; i++) {
                Http2Headers h = new DefaultHttp2Headers().method("GET").scheme("http").authority("edge")
                        .path("/v1/quotes").add("authorization", "Bearer " + HEAVY);
                ByteBuf block = Unpooled.buffer();
                hpack.encodeHeaders(2 * i + 1, h, block);
                byte[] b = new byte[block.readableBytes()];
                block.readBytes(b);
                block.release();
                frame(frames, 0x1, 0x5, 2 * i + 1, b); // HEADERS, END_STREAM | END_HEADERS
            }
            out.write(frames.toByteArray());
            out.flush();

            AtomicInteger refused = new AtomicInteger();
            long goAwayCode = -1;
            DataInputStream in = new DataInputStream(s.getInputStream());
            try {
                while (true) {
                    int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
                    int type = in.readUnsignedByte();
                    in.readUnsignedByte(); // flags
                    in.readInt(); // stream
                    byte[] payload = in.readNBytes(length);
                    if (type == 0x3 && readInt(payload, 0) == 0x7) {
                        refused.incrementAndGet();
                    } else if (type == 0x7) {
                        goAwayCode = readInt(payload, 4) & 0xffffffffL;
                        break;
                    }
                }
            } catch (SocketTimeoutException | java.io.EOFException e) {
                // nothing more for now (the connection stays open) or closed
            }

            assertThat(goAwayCode).as("no GOAWAY (0xb would be ENHANCE_YOUR_CALM)").isEqualTo(-1);
            assertThat(refused.get()).as("streams over 256 refused").isPositive();
            assertThat(edge.metrics()).doesNotContain("http2_enhance_your_calm");
        }
    }

    private static void frame(ByteArrayOutputStream out, int type, int flags, int stream, byte[] payload)
            throws IOException {
        out.write(payload.length >>> 16);
        out.write(payload.length >>> 8);
        out.write(payload.length);
        out.write(type);
        out.write(flags);
        out.write(stream >>> 24);
        out.write(stream >>> 16);
        out.write(stream >>> 8);
        out.write(stream);
        out.write(payload);
    }

    private static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }
}
