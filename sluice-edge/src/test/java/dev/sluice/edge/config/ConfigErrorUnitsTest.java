package dev.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.edge.EdgeConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every configuration error is one line naming the file, the line, the field and what was expected, with its
 * unit and an example (a duration like 250ms, a number of bytes, a whole percentage), at the field's own line.
 */
class ConfigErrorUnitsTest {

    private static final String PLANS = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
            keys:
              sk_1: free
            """;

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            upstream:\\n  connect-timeout: 5 | edge.yaml:2: upstream.connect-timeout: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was 5 (add a unit: 5s or 5ms)
            upstream:\\n  response-timeout: 0s | edge.yaml:2: upstream.response-timeout: must be > 0, was 0s
            escalation:\\n  window: 1 minute | edge.yaml:2: escalation.window: must be a duration like 250ms, 1.5s, 5m, 2h or 3d, was "1 minute" (units are ms, s, m, h, d: write 1m)
            shedding:\\n  limit: 10\\n  retry-after: 500ms | edge.yaml:3: shedding.retry-after: must be at least 1s (Retry-After is sent in whole seconds), was 500ms
            idempotency:\\n  unavailable-retry-after: 200ms | edge.yaml:2: idempotency.unavailable-retry-after: must be at least 1s (Retry-After is sent in whole seconds), was 200ms
            idempotency:\\n  on-store-unavailable: maybe | edge.yaml:2: idempotency.on-store-unavailable: must be reject or forward, was "maybe"
            listen:\\n  max-header-bytes: lots | edge.yaml:2: listen.max-header-bytes: must be a number of bytes like 16384 or 16KiB, was "lots"
            listen:\\n  max-header-bytes: 100 | edge.yaml:2: listen.max-header-bytes: must be in 256..1048576 (a number of bytes like 16384 or 16KiB), was 100
            listen:\\n  max-header-bytes: 2MiB | edge.yaml:2: listen.max-header-bytes: must be in 256..1048576 (a number of bytes like 16384 or 16KiB), was 2MiB
            listen:\\n  transport: epol | edge.yaml:2: listen.transport: must be one of auto, epoll, nio, was "epol"; did you mean "epoll"?
            shedding:\\n  reserved-percent: 120% | edge.yaml:2: shedding.reserved-percent: must be in 0..100 (a whole percentage like 20), was 120%
            soft-limit:\\n  threshold-percent: 0 | edge.yaml:2: soft-limit.threshold-percent: must be in 1..100 (a whole percentage like 20), was 0
            """)
    void anErrorNamesFileLineFieldAndTheExpectedUnit(String section, String message) {
        String yaml = section.replace("\\n", "\n") + "\n" + PLANS;
        assertThatThrownBy(() -> EdgeConfig.parse("edge.yaml", yaml)).isInstanceOf(ConfigException.class)
                .hasMessage(message);
    }

    @Test
    void theSharedFormsReadAtTheEdgeAsInEveryOtherFile() {
        EdgeConfig c = EdgeConfig.parse("edge.yaml", """
                listen:
                  idle-timeout: 1.5s
                  max-header-bytes: 16KiB
                upstream:
                  response-timeout: 1d
                soft-limit:
                  threshold-percent: 80%
                """ + PLANS);

        assertThat(c.listen().idleTimeout()).isEqualTo(Duration.ofMillis(1500));
        assertThat(c.listen().maxHeaderBytes()).isEqualTo(16_384);
        assertThat(c.upstream().responseTimeout()).isEqualTo(Duration.ofDays(1));
        assertThat(c.softLimitPercent()).isEqualTo(80);
    }

    @Test
    void anUnknownBlockSectionAndATabAreReportedOnTheirOwnLines() {
        assertThatThrownBy(() -> EdgeConfig.parse("edge.yaml", PLANS + "upstrem:\n  url: http://127.0.0.1:9000\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("edge.yaml:7: upstrem: unknown field; did you mean \"upstream\"?");
        assertThatThrownBy(() -> EdgeConfig.parse("edge.yaml", PLANS + "listen:\n\tport: 8080\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("edge.yaml:8: not valid YAML: found character '\\t(TAB)' that cannot start any token. "
                        + "(Do not use \\t(TAB) for indentation) (while scanning for the next token)");
    }

    @Test
    void aBurstWindowWithAUnitSaysItIsWholeSeconds() {
        assertThatThrownBy(() -> EdgeConfig.parse("edge.yaml", """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 20, w: 2s }
                keys:
                  sk_1: free
                """)).isInstanceOf(ConfigException.class)
                .hasMessage("edge.yaml:4: plans.free.policies[0].w: must be whole seconds like 60, was \"2s\"");
    }
}
