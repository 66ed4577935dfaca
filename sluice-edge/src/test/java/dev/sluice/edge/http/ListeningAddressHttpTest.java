package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The edge names its addresses as the configuration wrote them, with the bound port ({@code 0.0.0.0:8080}),
 * not as the socket prints itself ({@code /[0:0:0:0:0:0:0:0]:8080}); its start-up line uses these.
 */
@ExtendWith(NoLeaks.class)
class ListeningAddressHttpTest {

    @Test
    void theWildcardAddressIsNamedAsConfiguredWithTheBoundPort() {
        EdgeConfig parsed = EdgeConfig.parse("test.yaml", Edges.SHIPLANE);
        EdgeConfig config = parsed.withListen(parsed.listen().withHost("0.0.0.0").withPort(0)).withAdminPort(0)
                .withUpstreamUrl(URI.create("http://127.0.0.1:9"));
        try (EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults())) {
            assertThat(edge.listening().toString()).isEqualTo("0.0.0.0:" + edge.port());
            assertThat(edge.address().toString()).startsWith("/"); // the socket's own form, not for people
            assertThat(edge.adminListening()).hasValueSatisfying(
                    admin -> assertThat(admin.toString()).isEqualTo("127.0.0.1:" + edge.adminPort()));
        }
    }
}
