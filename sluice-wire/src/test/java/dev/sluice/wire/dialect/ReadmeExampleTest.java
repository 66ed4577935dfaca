package dev.sluice.wire.dialect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The dialect example of sluice-wire/README.md, so that the README cannot drift from the code. */
class ReadmeExampleTest {

    @Test
    void dailyDenialAt1840ReadsAsTheReadmeSays() {
        var response = new ResponseView(429, HttpFields.of(
                "Date", "Mon, 30 Nov 2026 18:40:00 GMT", "Retry-After", "19200",
                "RateLimit-Policy", "\"burst\";q=20;w=2, \"daily\";q=10000;w=86400",
                "RateLimit", "\"burst\";r=20;t=0, \"daily\";r=0;t=19200"), null);
        RateLimitSnapshot s = DialectRegistry.standard().read(response, Instant.parse("2026-11-30T18:40:03Z"));
        assertThat(s.outcome().wireName()).isEqualTo("quota_exhausted");
        assertThat(s.dialect()).isEqualTo("ietf-draft-11");
        assertThat(s.retryAfterMillis()).isEqualTo(19_200_000L); // SPEC §3.4
        assertThat(s.quotaResetAt()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(s.mostRestrictive().orElseThrow().name()).isEqualTo("daily");
        assertThat(s.suggestedWait()).contains(java.time.Duration.ofSeconds(19_200)); // t is relative: no margin
    }
}
