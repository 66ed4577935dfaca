package dev.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.config.ConfigException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** the resource bounds (SPEC §3.9) in the {@code listen} and {@code shedding} sections: defaults and errors. */
class ResourceBoundsConfigTest {

    private static final String PLANS = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
            keys: { sk_1: free }
            """;

    @Test
    void theDefaultsAreSafe() {
        ListenConfig l = EdgeConfig.parse("t.yaml", PLANS).listen();

        assertThat(l.minBodyRateBytesPerSecond()).isEqualTo(240);
        assertThat(l.minBodyRateWindow()).isEqualTo(Duration.ofSeconds(5));
        assertThat(l.writeTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(l.maxUpstreamStreamsPerConnection()).isEqualTo(8);
        assertThat(l.trustedProxies().isEmpty()).isTrue();
        assertThat(l.maxConnections()).isEqualTo(ListenConfig.autoMaxConnections()).isPositive();
        assertThat(EdgeConfig.parse("t.yaml", PLANS).protection().sheddingFor(64).fairShareWindow())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void autoMaxConnectionsStaysBelowTheDescriptorLimit() {
        // a machine with a descriptor limit of 20,000: 20,000 descriptors
        assertThat(ListenConfig.autoMaxConnections(20_000)).isEqualTo(18_976);
        assertThat(ListenConfig.autoMaxConnections(1_024)).isEqualTo(64);
    }

    @Test
    void everyBoundIsReadFromTheFile() {
        EdgeConfig c = EdgeConfig.parse("t.yaml", PLANS + """
                listen:
                  max-connections: 5000
                  min-body-rate: 1000
                  min-body-rate-window: 2s
                  write-timeout: 10s
                  max-upstream-streams-per-connection: 4
                  trusted-proxies: [10.0.0.0/8, "2001:db8::/32", 192.0.2.1]
                shedding: { fair-share-window: off }
                """);
        ListenConfig l = c.listen();

        assertThat(l.maxConnections()).isEqualTo(5000);
        assertThat(l.minBodyRateBytesPerSecond()).isEqualTo(1000);
        assertThat(l.minBodyRateWindow()).isEqualTo(Duration.ofSeconds(2));
        assertThat(l.writeTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(l.maxUpstreamStreamsPerConnection()).isEqualTo(4);
        assertThat(l.trustedProxies().specs()).containsExactly("10.0.0.0/8", "2001:db8::/32", "192.0.2.1");
        assertThat(c.protection().sheddingFor(64).fairShareWindow()).isZero();
        assertThat(EdgeConfig.parse("t.yaml", PLANS + "listen: { max-connections: auto }\n").listen().maxConnections())
                .isEqualTo(ListenConfig.autoMaxConnections());
    }

    @Test
    void badBoundsAreRefusedAtTheirLine() {
        assertThatThrownBy(() -> EdgeConfig.parse("t.yaml", PLANS + """
                listen:
                  write-timeout: 0s
                  max-upstream-streams-per-connection: 0
                  trusted-proxies: [evil.example, 10.0.0.0/33]
                """)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("t.yaml:7: listen.write-timeout")
                .hasMessageContaining("t.yaml:8: listen.max-upstream-streams-per-connection")
                .hasMessageContaining("\"evil.example\" is not an IP address or CIDR block")
                .hasMessageContaining("the prefix must be 0..32");
    }

    @Test
    void trustedProxiesMatchTheirBlocksOnly() throws Exception {
        TrustedProxies t = TrustedProxies.of(List.of("10.0.0.0/8", "192.0.2.128/25", "2001:db8::/32"));

        assertThat(t.contains(InetAddress.getByName("10.255.1.2"))).isTrue();
        assertThat(t.contains(InetAddress.getByName("11.0.0.1"))).isFalse();
        assertThat(t.contains(InetAddress.getByName("192.0.2.200"))).isTrue();
        assertThat(t.contains(InetAddress.getByName("192.0.2.100"))).isFalse();
        assertThat(t.contains(InetAddress.getByName("2001:db8::1"))).isTrue();
        assertThat(t.contains(InetAddress.getByName("2001:db9::1"))).isFalse();
        assertThat(TrustedProxies.NONE.contains(InetAddress.getByName("127.0.0.1"))).isFalse();
    }
}
