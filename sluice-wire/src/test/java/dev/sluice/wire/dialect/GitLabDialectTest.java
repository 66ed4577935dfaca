package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class GitLabDialectTest {

    @Test
    void resetIsAnEpochMeasuredFromDateAndObservedIsUsed() {
        RateLimitSnapshot s = read(429, null, "Date", "Tue, 05 Jan 2021 10:59:30 GMT", "RateLimit-Limit", "60",
                "RateLimit-Name", "throttle_authenticated_web", "RateLimit-Observed", "67", "RateLimit-Remaining", "0",
                "RateLimit-Reset", "1609844400", "RateLimit-ResetTime", "Tue, 05 Jan 2021 11:00:00 GMT", "Retry-After", "30");
        assertThat(s.dialect()).isEqualTo("gitlab");
        PolicySnapshot p = s.policies().get(0);
        assertThat(p.name()).isEqualTo("throttle_authenticated_web");
        assertThat(p.used()).isEqualTo(67L);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.resetAt()).isEqualTo(Instant.parse("2021-01-05T11:00:00Z"));
    }

    @Test
    void resetTimeIsTheFallbackWhenResetIsMissing() {
        PolicySnapshot p = read(200, null, "Date", "Tue, 05 Jan 2021 10:59:00 GMT",
                "RateLimit-ResetTime", "Tue, 05 Jan 2021 11:00:00 GMT").policies().get(0);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(60));
    }
}
