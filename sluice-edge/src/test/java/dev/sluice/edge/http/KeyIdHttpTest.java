package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.ConfigException;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.softlimit.LoggingQuotaWarningSink;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Keys appear in {@code quota.warning} events and in log lines by a stable, non-reversible id plus the plan
 * (SPEC §3.8: one event per key must be visible as such), never by the key or a prefix of it.
 */
@ExtendWith(NoLeaks.class)
class KeyIdHttpTest {

    private static final String FREE_1 = "sk_test_free_1";
    private static final String FREE_2 = "sk_test_free_2";

    private static List<QuotaWarning> crossTheSoftLimitWithTwoKeys(Edges edge) {
        for (String key : List.of(FREE_1, FREE_2)) {
            edge.spend(key, 7_999);
            assertThat(edge.get("/v1/quotes", key).statusCode()).isEqualTo(200); // the 8,000th: SPEC §3.8
        }
        return edge.quotaWarnings();
    }

    @Test
    void twoKeysCrossingTheSoftLimitAreTwoEventsWithTwoStableIds() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z")) {
            List<QuotaWarning> warnings = crossTheSoftLimitWithTwoKeys(edge);

            assertThat(warnings).hasSize(2);
            assertThat(warnings).extracting(QuotaWarning::keyId)
                    .containsExactly(KeyIds.DEFAULT.id(FREE_1), KeyIds.DEFAULT.id(FREE_2))
                    .doesNotHaveDuplicates()
                    .allMatch(id -> id.matches("k[0-9a-f]{12}"));
            assertThat(warnings).extracting(QuotaWarning::plan).containsOnly("free");
            for (QuotaWarning w : warnings) {
                String line = LoggingQuotaWarningSink.line(w);
                assertThat(line).startsWith("quota.warning key_id=" + w.keyId() + " plan=free policy=daily used=8000")
                        .doesNotContain("sk_test");
            }
        }
    }

    @Test
    void aConfiguredSecretGivesOtherIdsThanTheBuiltInOne() {
        String secret = "a-long-operator-secret";
        EdgeConfig config = EdgeConfig.parse("test.yaml", Edges.SHIPLANE + "key-id-secret: " + secret + "\n");
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(config, upstream.url(), ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
            List<QuotaWarning> warnings = crossTheSoftLimitWithTwoKeys(edge);

            assertThat(warnings).extracting(QuotaWarning::keyId)
                    .containsExactly(new KeyIds(secret).id(FREE_1), new KeyIds(secret).id(FREE_2))
                    .doesNotContain(KeyIds.DEFAULT.id(FREE_1));
        }
    }

    @Test
    void aShortSecretIsRefusedAndNotEchoed() {
        assertThatThrownBy(() -> EdgeConfig.parse("test.yaml", Edges.SHIPLANE + "key-id-secret: hunter2\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("key-id-secret: must be a string of at least 16 characters")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void theRetryLoopLogNamesTheKeyByItsIdAndPlan() {
        // SPEC §3.12 "and logs it": three early requests out of four escalate the key
        EdgeConfig config = EdgeConfig.parse("test.yaml", Edges.SHIPLANE
                + "escalation: { min-requests: 3, threshold-percent: 50 }\n");
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(config, upstream.url(), ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
            edge.exhaustBurst(FREE_1);
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            for (int i = 0; i < 6; i++) {
                assertThat(edge.get("/v1/quotes", FREE_1).statusCode()).isEqualTo(429);
            }
            assertThat(edge.server.escalation().level(FREE_1)).isPositive();
        } finally {
            System.setErr(stderr);
        }
        String log = captured.toString(StandardCharsets.UTF_8);
        assertThat(log).contains("retry loop: key_id=" + KeyIds.DEFAULT.id(FREE_1)
                        + " plan=free client=127.0.0.1 escalated to level 1")
                .doesNotContain("sk_test");
    }
}
