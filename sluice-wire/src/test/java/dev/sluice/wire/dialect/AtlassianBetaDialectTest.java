package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AtlassianBetaDialectTest {

    @Test
    void betaFieldsWinOverTheBurstCountersAndKeepReasonAndReset() {
        RateLimitSnapshot s = read(429, null, "Beta-Ratelimit", "\"tenant-app-quota\";r=0;t=2788",
                "X-Beta-Ratelimit-Reason", "jira-quota-tenant-based", "X-Beta-Ratelimit-Reset", "2026-03-26T16:00Z",
                "X-Ratelimit-Limit", "400", "X-Ratelimit-Remaining", "399");
        assertThat(s.dialect()).isEqualTo("atlassian-beta");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED); // the exhausted policy is a quota by name
        assertThat(s.policies()).hasSize(1);
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(2788));
        assertThat(s.policies().get(0).resetAt()).isEqualTo(Instant.parse("2026-03-26T16:00:00Z"));
        assertThat(s.attributes()).containsEntry("reason", "jira-quota-tenant-based");
    }
}
