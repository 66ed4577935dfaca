package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GoogleRpcDialectTest {

    /** R08b: ErrorInfo names a per-day quota: quota_exhausted after the first response. */
    @Test
    void r08bPerDayQuotaLimitIsQuotaExhausted() {
        String body = "{\"error\":{\"code\":429,\"message\":\"Quota exceeded\",\"status\":\"RESOURCE_EXHAUSTED\","
                + "\"details\":[{\"@type\":\"type.googleapis.com/google.rpc.ErrorInfo\",\"reason\":\"RATE_LIMIT_EXCEEDED\","
                + "\"domain\":\"googleapis.com\",\"metadata\":{\"quota_limit\":\"Gemini25ProRequestsPerDay\","
                + "\"quota_limit_value\":\"100\",\"quota_metric\":\"generativelanguage.googleapis.com/generate_requests\"}}]}}";
        RateLimitSnapshot s = read(429, body);
        assertThat(s.dialect()).isEqualTo("google");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(s.violatedPolicy()).isEqualTo("Gemini25ProRequestsPerDay");
        assertThat(s.policies().get(0).quota()).isEqualTo(100L);
        assertThat(s.policies().get(0).kind()).isEqualTo(PolicyKind.QUOTA);
        assertThat(s.attributes()).containsEntry("reason", "RATE_LIMIT_EXCEEDED");
    }

    /** R08c: a per-minute quota with RetryInfo is a transient rate limit, retried after 26 s. */
    @Test
    void r08cPerMinuteQuotaWithRetryInfoIsRateLimited() {
        String body = "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":["
                + "{\"@type\":\"type.googleapis.com/google.rpc.QuotaFailure\",\"violations\":[{\"quotaId\":"
                + "\"GenerateContentInputTokensPerModelPerMinute-FreeTier\",\"quotaValue\":\"250000\"}]},"
                + "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"26s\"}]}}";
        RateLimitSnapshot s = read(429, body);
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(26));
        assertThat(s.policies().get(0).kind()).isEqualTo(PolicyKind.BURST);
    }

    @Test
    void fractionalRetryDelayAndArrayWrapperAreRead() {
        String body = "[{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\",\"details\":["
                + "{\"@type\":\"type.googleapis.com/google.rpc.RetryInfo\",\"retryDelay\":\"1.5s\"}]}}]";
        RateLimitSnapshot s = read(429, body);
        assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
    }

    @Test
    void resourceExhaustedNamingNoQuotaIsStillTheCallersLimit() {
        // a 429 is addressed to the caller; without words saying shared capacity is short,
        // RESOURCE_EXHAUSTED without RetryInfo or QuotaFailure is a rate limit, not an overload
        RateLimitSnapshot s = read(429, "{\"error\":{\"code\":429,\"message\":\"Resource exhausted. Please try again later.\","
                + "\"status\":\"RESOURCE_EXHAUSTED\"}}");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
    }

    @Test
    void resourceExhaustedThatSaysCapacityIsShortIsOverloaded() {
        RateLimitSnapshot s = read(429, "{\"error\":{\"code\":429,\"message\":\"The model is overloaded. Please try again later.\","
                + "\"status\":\"RESOURCE_EXHAUSTED\"}}");
        assertThat(s.outcome()).isEqualTo(Outcome.OVERLOADED);
    }

    @Test
    void otherGoogleErrorsAreNotThisDialect() {
        assertThat(read(400, "{\"error\":{\"code\":400,\"status\":\"INVALID_ARGUMENT\"}}").dialect()).isNull();
    }
}
