package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.edge.EdgeClient.OkUpstream;
import dev.sluice.cli.edge.EdgeClient.Reply;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import java.net.ServerSocket;
import java.net.URI;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3.6 and §3.14 (R17): while Redis does not answer and the store fails open, the key is limited by
 * its local share {@code ceil(q/N)}; {@code GET /v1/usage} must report that plan, in its body and in its
 * {@code RateLimit-Policy}, as a decision's answer does, not the nominal plan with the share's
 * {@code r}. Needs no Redis: the store points at a port nobody listens on.
 */
class UsageDuringFallbackTest {

    @Test
    void theUsageReportShowsTheDegradedPlanTheReplicaEnforces() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        EdgeConfig config = EdgeConfig.parse("f.yaml", """
                admin: off
                store: { url: redis://127.0.0.1:%d, replicas: 3 }
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 20, w: 2 }
                      - { name: daily, kind: quota, q: 10000, window: daily }
                keys:
                  sk_free: free
                """.formatted(closed)).withListenPort(0);
        EdgeClient client = new EdgeClient();
        try (OkUpstream upstream = new OkUpstream();
                LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
                EdgeServer edge = EdgeServer.start(config.withUpstreamUrl(URI.create(upstream.url())),
                        EdgeOptions.defaults().withStore(store))) {
            Reply decided = client.send(edge.port(), "GET", "/v1/quotes", "sk_free");
            Reply usage = client.send(edge.port(), "GET", "/v1/usage", "sk_free");

            // the local share: ceil(20/3) = 7 per 2 s, ceil(10000/3) = 3334 a day; one spent
            String degraded = "\"burst\";q=7;w=2, \"daily\";q=3334;w=86400";
            assertThat(decided.status()).isEqualTo(200);
            assertThat(decided.policy()).isEqualTo(degraded);
            assertThat(usage.status()).isEqualTo(200);
            assertThat(usage.policy()).isEqualTo(degraded);
            assertThat(usage.remaining("burst")).isEqualTo(6);
            assertThat(usage.body()).contains("{\"name\":\"burst\",\"q\":7,\"w\":2,\"r\":6}")
                    .contains("{\"name\":\"daily\",\"q\":3334,\"w\":86400,\"r\":3333,");
        }
    }
}
