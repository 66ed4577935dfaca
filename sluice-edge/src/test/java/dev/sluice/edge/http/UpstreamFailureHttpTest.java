package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.time.ManualTimeSource;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Upstream trouble: unreachable is a 502 problem, silent past the response timeout is a
 * 504 problem; both still carry the key's RateLimit fields (SPEC §2.2) and are not the shedder's 503.
 */
@ExtendWith(NoLeaks.class)
class UpstreamFailureHttpTest {

    private static final String FREE = "sk_test_free_1";

    @Test
    void unreachableUpstreamIs502WithTheKeysRateLimitFields() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        try (Edges edge = Edges.start(EdgeConfig.parse("test.yaml", Edges.SHIPLANE),
                URI.create("http://127.0.0.1:" + closedPort), ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
            HttpResponse<String> r = edge.get("/v1/quotes", FREE);
            assertThat(r.statusCode()).isEqualTo(502);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(r.body()).contains("\"type\":\"https://docs.shiplane.example/errors/upstream_unavailable\"");
            assertThat(r.headers().firstValue("RateLimit")).hasValue("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
            assertThat(r.headers().firstValue("RateLimit-Policy")).isPresent();
            assertThat(edge.metrics()).contains("sluice_edge_upstream_responses_total{class=\"unreachable\","
                    + "route=\"GET /v1/quotes\"} 1.0");
            // the edge stays usable
            assertThat(edge.get("/v1/usage", FREE).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void silentUpstreamIs504AfterTheResponseTimeout() throws IOException {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = silent.accept();
                        accepted.add(s);
                        InputStream in = s.getInputStream();
                        Thread.ofVirtual().start(() -> {
                            try {
                                in.transferTo(java.io.OutputStream.nullOutputStream()); // read, never answer
                            } catch (IOException e) {
                                // closed
                            }
                        });
                    }
                } catch (IOException e) {
                    // server closed
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            EdgeConfig config = EdgeConfig.parse("test.yaml", Edges.SHIPLANE + """
                    upstream: { response-timeout: 300ms }
                    """);
            try (Edges edge = Edges.start(config, URI.create("http://127.0.0.1:" + silent.getLocalPort()),
                    ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
                HttpResponse<String> r = edge.get("/v1/quotes", FREE);
                assertThat(r.statusCode()).isEqualTo(504);
                assertThat(r.body()).contains("upstream_timeout");
                assertThat(r.headers().firstValue("RateLimit")).hasValue(
                        "\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
                assertThat(edge.metrics()).contains("class=\"timeout\",route=\"GET /v1/quotes\"} 1.0");
            }
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }
}
