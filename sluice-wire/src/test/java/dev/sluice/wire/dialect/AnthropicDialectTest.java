package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AnthropicDialectTest {

    @Test
    void r05Rfc3339ResetIsAnInstantMeasuredFromTheResponsesDate() {
        RateLimitSnapshot s = read(200, null, "date", "Tue, 26 Mar 2024 19:59:30 GMT",
                "anthropic-ratelimit-requests-limit", "50", "anthropic-ratelimit-requests-remaining", "49",
                "anthropic-ratelimit-requests-reset", "2024-03-26T20:00:00Z",
                "anthropic-ratelimit-input-tokens-limit", "20000", "anthropic-ratelimit-input-tokens-remaining", "0",
                "anthropic-ratelimit-input-tokens-reset", "2024-03-26T20:00:15.5+00:00");
        assertThat(s.dialect()).isEqualTo("anthropic");
        assertThat(s.policies()).extracting(PolicySnapshot::name).containsExactly("requests", "input-tokens");
        assertThat(s.policy("requests").orElseThrow().resetIn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.policy("input-tokens").orElseThrow().resetIn()).isEqualTo(Duration.ofMillis(45_500));
        assertThat(s.policy("input-tokens").orElseThrow().resetAt()).isEqualTo(Instant.parse("2024-03-26T20:00:15.500Z"));
        assertThat(s.mostRestrictive().orElseThrow().name()).isEqualTo("input-tokens");
    }

    @Test
    void aResetInThePastIsClampedAtZero() {
        RateLimitSnapshot s = read(200, null, "date", "Tue, 26 Mar 2024 20:00:10 GMT",
                "anthropic-ratelimit-tokens-remaining", "5", "anthropic-ratelimit-tokens-reset", "2024-03-26T20:00:00Z");
        assertThat(s.policies().get(0).resetIn()).isZero();
    }

    /** R09: 529 overloaded_error is overloaded, never rate_limited or quota_exhausted, every time. */
    @Test
    void r09Consecutive529sAreOverloadedAndTouchNoPolicy() {
        String body = "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}";
        for (int i = 0; i < 8; i++) {
            RateLimitSnapshot s = read(529, body);
            assertThat(s.outcome()).isEqualTo(Outcome.OVERLOADED);
            assertThat(s.violatedPolicy()).isNull();
            assertThat(s.quotaResetAt()).isNull();
            assertThat(s.retryAfter()).isNull();
        }
    }

    @Test
    void rateLimitErrorBodyIsRecognised() {
        RateLimitSnapshot s = read(429, "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"x\"}}");
        assertThat(s.dialect()).isEqualTo("anthropic");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.attributes()).containsEntry("error_type", "rate_limit_error");
    }
}
