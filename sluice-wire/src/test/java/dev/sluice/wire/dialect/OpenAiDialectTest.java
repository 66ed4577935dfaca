package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class OpenAiDialectTest {

    /** R05: Go-style durations read whole, in milliseconds. */
    @ParameterizedTest
    @CsvSource({"6m0s, 360000", "1s, 1000", "60s, 60000", "2m30.5s, 150500", "500ms, 500", "2m59.56s, 179560",
        "7.66s, 7660", "20ms, 20", "1.5, 1500"})
    void r05ResetDurationsAreReadWhole(String reset, long millis) {
        RateLimitSnapshot s = read(200, null, "x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-reset-requests", reset);
        assertThat(s.dialect()).isEqualTo("openai");
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofMillis(millis));
    }

    @Test
    void oneFamilyPerSuffix() {
        RateLimitSnapshot s = read(200, null, "x-ratelimit-limit-requests", "60", "x-ratelimit-limit-tokens", "150000",
                "x-ratelimit-remaining-requests", "59", "x-ratelimit-remaining-tokens", "149984",
                "x-ratelimit-reset-requests", "1s", "x-ratelimit-reset-tokens", "6m0s");
        assertThat(s.policies()).extracting(PolicySnapshot::name).containsExactly("requests", "tokens");
        assertThat(s.policy("tokens").orElseThrow().quotaUnit()).isEqualTo("tokens");
        assertThat(s.policy("tokens").orElseThrow().resetIn()).isEqualTo(Duration.ofMinutes(6));
    }

    /** R02: a negative reset and a negative Retry-After are malformed: unknown, never negative. */
    @Test
    void r02NegativeResetAndRetryAfterAreUnknown() {
        RateLimitSnapshot s = read(429, null, "retry-after", "-43", "x-ratelimit-limit-requests", "60",
                "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "-43");
        assertThat(s.retryAfter()).isNull();
        assertThat(s.policies().get(0).resetIn()).isNull();
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
    }

    /** R08a: billing quota spent is quota_exhausted after the first response, never retried. */
    @Test
    void r08aInsufficientQuotaIsQuotaExhausted() {
        String body = "{\"error\":{\"message\":\"You exceeded your current quota, please check your plan and billing details.\","
                + "\"type\":\"insufficient_quota\",\"param\":null,\"code\":\"insufficient_quota\"}}";
        RateLimitSnapshot s = read(429, body, "x-request-id", "req_1");
        assertThat(s.dialect()).isEqualTo("openai");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(s.violatedPolicy()).isEqualTo("insufficient_quota");
    }

    @Test
    void azureNegativeSentinelsReportNothing() {
        RateLimitSnapshot s = read(200, null, "x-ratelimit-limit-tokens", "-1", "x-ratelimit-remaining-tokens", "-1",
                "x-ratelimit-reset-tokens", "0");
        assertThat(s.policies()).isEmpty();
    }

    @Test
    void retryAfterMsIsPreferredToRetryAfter() {
        RateLimitSnapshot s = read(429, null, "retry-after-ms", "1500", "retry-after", "2",
                "x-ratelimit-remaining-requests", "0");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(1500));
    }
}
