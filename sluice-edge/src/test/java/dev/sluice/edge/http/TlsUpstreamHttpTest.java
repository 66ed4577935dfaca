package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.SelfSigned;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@code https://} upstream: the edge sends the host as SNI (RFC 6066 §3), checks the certificate chain
 * against {@code ca-file} (or the JDK's roots) and the host name (RFC 9110 §4.3.4) unless told not to; a
 * failed check is a 502, the request never reaching the upstream's handler.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(NoLeaks.class)
class TlsUpstreamHttpTest {

    private static final String FREE = "sk_test_free_1";

    @TempDir
    Path dir;
    private SelfSigned upstreamCert;
    private List<String> serverNames;
    private TestUpstream upstream;
    private Edges edge;

    @BeforeEach
    void start() {
        // the upstream's certificate names localhost only (no IP address)
        upstreamCert = SelfSigned.create(dir, "upstream", "localhost", List.of("localhost"), List.of());
        serverNames = SelfSigned.names();
        upstream = TestUpstream.https(upstreamCert.serverContext(serverNames));
    }

    @AfterEach
    void stop() {
        if (edge != null) {
            edge.close();
        }
        upstream.close();
    }

    private Edges edge(String upstreamSection, URI url) {
        EdgeConfig c = EdgeConfig.parse("up.yaml", Edges.SHIPLANE + "upstream:\n" + upstreamSection);
        edge = Edges.start(c, url, ManualTimeSource.at("2026-11-30T12:00:00Z"));
        return edge;
    }

    private URI localhost() {
        return URI.create("https://localhost:" + upstream.port());
    }

    @Test
    void aCertificateFromTheCaFileIsTrustedAndTheHostIsSentAsSni() {
        edge("  url: https://localhost:1\n  ca-file: \"" + upstreamCert.certificate() + "\"\n", localhost());
        assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(200);
        assertThat(upstream.requests()).isEqualTo(1);
        assertThat(upstream.seen().get(0).header("host")).isEqualTo("localhost:" + upstream.port());
        assertThat(serverNames).containsExactly("localhost");
    }

    @Test
    void aCertificateTheJdkDoesNotTrustIsA502() {
        edge("  url: https://localhost:1\n", localhost());
        assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(502);
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void aCertificateThatDoesNotNameTheHostIsA502() {
        // trusted through ca-file, but the URL's host is 127.0.0.1 and the certificate names only localhost
        edge("  url: https://127.0.0.1:1\n  ca-file: \"" + upstreamCert.certificate() + "\"\n",
                URI.create("https://127.0.0.1:" + upstream.port()));
        assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(502);
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void verificationCanBeTurnedOff() {
        edge("  url: https://127.0.0.1:1\n  verify-certificate: false\n",
                URI.create("https://127.0.0.1:" + upstream.port()));
        assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(200);
        assertThat(upstream.requests()).isEqualTo(1);
    }
}
