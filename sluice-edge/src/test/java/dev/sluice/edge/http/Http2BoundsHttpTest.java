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
import io.netty.handler.codec.http2.Http2Settings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §3.9, defects 3 over h2c: one connection must not take the upstream pool of its event loop (streams that
 * never send their body, or never open their flow-control window).
 */
@ExtendWith(NoLeaks.class)
class Http2BoundsHttpTest {

    private static final String HEAVY = "sk_test_pro_1";
    private static final String OTHER = "sk_test_free_2";

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
            await("write timeouts").atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> edge.metrics().contains("sluice_edge_connection_errors_total{kind=\"write_timeout\"}"));
            assertThat(edge.metrics()).contains("sluice_edge_connection_errors_total{kind=\"write_timeout\"}");
        }
    }
}
