package dev.sluice.edge.config;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.config.ConfigException;
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
            upstream:\\n  connect-timeout: 5 | edge.yaml:2: upstream.connect-timeout: must be a duration like 250ms or 2s (units ms, s, m, h), was 5 (add a unit: 5s or 5ms)
            upstream:\\n  response-timeout: 1.5s | edge.yaml:2: upstream.response-timeout: must be a duration like 250ms or 2s (units ms, s, m, h), was "1.5s" (whole numbers only: use a smaller unit, e.g. 1500ms for 1.5s)
            escalation:\\n  window: 1 minute | edge.yaml:2: escalation.window: must be a duration like 250ms or 2s (units ms, s, m, h), was "1 minute"
            shedding:\\n  limit: 10\\n  retry-after: 500ms | edge.yaml:3: shedding.retry-after: must be at least 1s (Retry-After is sent in whole seconds), was 500ms
            idempotency:\\n  unavailable-retry-after: 200ms | edge.yaml:2: idempotency.unavailable-retry-after: must be at least 1s (Retry-After is sent in whole seconds), was 200ms
            idempotency:\\n  on-store-unavailable: maybe | edge.yaml:2: idempotency.on-store-unavailable: must be reject or forward, was "maybe"
            listen:\\n  max-header-bytes: 16KB | edge.yaml:2: listen.max-header-bytes: must be a number of bytes like 16384, was "16KB"
            listen:\\n  max-header-bytes: 100 | edge.yaml:2: listen.max-header-bytes: must be in 256..1048576 (a number of bytes like 16384), was 100
            shedding:\\n  reserved-percent: 20% | edge.yaml:2: shedding.reserved-percent: must be a whole percentage like 20 (no % sign), was "20%"
            soft-limit:\\n  threshold-percent: 80% | edge.yaml:2: soft-limit.threshold-percent: must be a whole percentage like 20 (no % sign), was "80%"
            """)
    void anErrorNamesFileLineFieldAndTheExpectedUnit(String section, String message) {
        String yaml = section.replace("\\n", "\n") + "\n" + PLANS;
        assertThatThrownBy(() -> EdgeConfig.parse("edge.yaml", yaml)).isInstanceOf(ConfigException.class)
                .hasMessage(message);
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
