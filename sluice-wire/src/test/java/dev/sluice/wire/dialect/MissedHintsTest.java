package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Review findings E (missed hints), G (Mistral's request families) and H (huge body numbers). */
class MissedHintsTest {

    /**
     * Finding E. Telegram Bot API, core.telegram.org/bots/api#responseparameters: a 429 carries
     * {@code parameters.retry_after}, "the number of seconds left to wait before the request can
     * be repeated".
     */
    @Test
    void telegramParametersRetryAfterIsTheWait() {
        RateLimitSnapshot s = read(429, "{\"ok\":false,\"error_code\":429,\"description\":\"Too Many Requests: retry after 34\","
                + "\"parameters\":{\"retry_after\":34}}", "Content-Type", "application/json");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(34));
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(34));
    }

    /** Finding E generalised: a retry_after-like member at the nesting paths and spellings servers use. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "{\"retry_after\":12}|12000",
        "{\"retryAfter\":12}|12000",
        "{\"error\":{\"retry_after\":12}}|12000",
        "{\"error\":{\"retryAfter\":\"12\"}}|12000",
        "{\"errors\":[{\"code\":\"throttled\",\"retry_after\":12}]}|12000",
        "{\"data\":{\"limits\":{\"retry_after_seconds\":12.5}}}|12500",
        "{\"error\":{\"retry_after_ms\":1500}}|1500",
        "{\"RetryAfter\":\"1m0s\"}|60000",
    })
    void aRetryAfterMemberIsFoundWhereverErrorBodiesPutIt(String body, long millis) {
        assertThat(read(429, body).retryAfter()).isEqualTo(Duration.ofMillis(millis));
    }

    /** A body hint found beside rate-limit fields of another dialect still counts (the longest wins). */
    @Test
    void aBodyHintCountsWhateverDialectMatched() {
        RateLimitSnapshot s = read(429, "{\"error\":{\"retry_after\":20}}", "X-RateLimit-Remaining", "0",
                "X-RateLimit-Reset", "3");
        assertThat(s.dialect()).isEqualTo("x-ratelimit");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(20));
    }

    /**
     * Finding E. Azure OpenAI 429 of openai/openai-python#937: no Retry-After, only
     * {@code x-rate-limit-reset-tokens: 55} (note the hyphen) beside {@code x-ratelimit-remaining-*}.
     */
    @Test
    void azureOpenAiHyphenatedTokensResetIsTheWait() {
        RateLimitSnapshot s = read(429, "{\"error\":{\"code\":\"429\",\"message\":\"Requests to the ChatCompletions_Create"
                        + " Operation under Azure OpenAI API have exceeded token rate limit of your current OpenAI S0"
                        + " pricing tier.\"}}",
                "Content-Type", "application/json", "x-rate-limit-reset-tokens", "55",
                "policy-id", "DeploymentRatelimit-Token", "x-ratelimit-remaining-requests", "59",
                "x-ratelimit-remaining-tokens", "1200");
        assertThat(s.dialect()).isEqualTo("openai");
        PolicySnapshot tokens = s.policy("tokens").orElseThrow();
        assertThat(tokens.resetIn()).isEqualTo(Duration.ofSeconds(55));
        assertThat(tokens.remaining()).isEqualTo(1200L);
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(55));
    }

    /**
     * Finding E. AWS API Gateway developer guide, gateway response types: QUOTA_EXCEEDED is 429
     * {@code {"message":"Limit Exceeded"}} (the usage plan's quota is spent); THROTTLED is 429
     * {@code {"message":"Too Many Requests"}}.
     */
    @Test
    void awsApiGatewayLimitExceededIsAQuotaAndTooManyRequestsAThrottle() {
        RateLimitSnapshot quota = read(429, "{\"message\":\"Limit Exceeded\"}", "Content-Type", "application/json",
                "x-amzn-RequestId", "5f0c7e0d-aaaa-bbbb-cccc-0123456789ab", "x-amzn-ErrorType", "LimitExceededException");
        assertThat(quota.dialect()).isEqualTo("aws");
        assertThat(quota.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(quota.attributes()).containsEntry("error_type", "LimitExceededException");
        RateLimitSnapshot throttle = read(429, "{\"message\":\"Too Many Requests\"}", "Content-Type", "application/json",
                "x-amzn-RequestId", "5f0c7e0d-aaaa-bbbb-cccc-0123456789ab", "x-amzn-ErrorType", "TooManyRequestsException");
        assertThat(throttle.outcome()).isEqualTo(Outcome.RATE_LIMITED);
    }

    /** The same verdicts from either half alone: the type with its coral suffix, or the gateway message. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "x-amzn-ErrorType|LimitExceededException:http://internal.amazon.com/coral/com.amazon.coral.service/|{}|quota_exhausted",
        "x-amzn-RequestId|r-1|{\"message\":\"Limit Exceeded\"}|quota_exhausted",
        "x-amz-apigw-id|a-1|{\"message\":\"Too Many Requests\"}|rate_limited",
        "x-amzn-RequestId|r-1|{\"__type\":\"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException\",\"message\":\"x\"}|rate_limited",
        "x-amzn-RequestId|r-1|{\"__type\":\"ThrottlingException\",\"message\":\"Rate exceeded\"}|rate_limited",
    })
    void awsErrorTypesDecideTheKind(String header, String value, String body, String kind) {
        assertThat(read(429, body, header, value).outcome().wireName()).isEqualTo(kind);
    }

    /** LimitExceededException off a 429 is often a resource-count limit: no wait clears it. */
    @Test
    void awsLimitExceededOnA400IsNotALimitByItself() {
        assertThat(read(400, "{\"__type\":\"LimitExceededException\",\"message\":\"too many streams\"}",
                "x-amzn-RequestId", "r-1").outcome()).isEqualTo(Outcome.CLIENT_ERROR);
    }

    /**
     * Finding G. Mistral sends {@code x-ratelimit-limit-req-minute: 720} and
     * {@code x-ratelimit-remaining-req-minute: 719}: requests, not tokens, per 60 s.
     */
    @Test
    void mistralRequestFamilyIsRequestsPerMinute() {
        RateLimitSnapshot s = read(200, null, "x-ratelimit-limit-req-minute", "720",
                "x-ratelimit-remaining-req-minute", "719");
        PolicySnapshot p = s.policy("req-minute").orElseThrow();
        assertThat(p.quotaUnit()).isEqualTo("requests");
        assertThat(p.windowSeconds()).isEqualTo(60L);
        assertThat(p.quota()).isEqualTo(720L);
        assertThat(p.remaining()).isEqualTo(719L);
        assertThat(p.kind()).isEqualTo(PolicySnapshot.PolicyKind.BURST);
    }

    /** Finding G generalised: the family's words give the unit and its period suffix the window. */
    @ParameterizedTest
    @CsvSource(nullValues = "-", value = {
        "requests, requests, -",
        "tokens, tokens, -",
        "tokens_usage_based, tokens, -",
        "req-minute, requests, 60",
        "req-second, requests, 1",
        "req-hour, requests, 3600",
        "req-day, requests, 86400",
        "tokens-minute, tokens, 60",
        "tokens-day, tokens, 86400",
        "input-tokens, tokens, -",
        "tokens-month, tokens, -",
        "images, -, -",
    })
    void aFamilyNameSaysItsUnitAndWindow(String family, String unit, Long window) {
        PolicySnapshot p = read(200, null, "x-ratelimit-limit-" + family, "100", "x-ratelimit-remaining-" + family, "99")
                .policy(family).orElseThrow();
        assertThat(p.quotaUnit()).isEqualTo(unit);
        assertThat(p.windowSeconds()).isEqualTo(window);
    }

    @Test
    void aMonthlyFamilyIsAQuotaPolicy() {
        assertThat(read(200, null, "x-ratelimit-limit-tokens-month", "1000000000",
                "x-ratelimit-remaining-tokens-month", "5").policy("tokens-month").orElseThrow().kind())
                .isEqualTo(PolicySnapshot.PolicyKind.QUOTA);
    }

    /** Finding H, R03: a 5,000-digit JSON retry_after saturates; it never overflows and never vanishes. */
    @Test
    void r03AFiveThousandDigitBodyRetryAfterSaturates() {
        String digits = "9".repeat(5_000);
        assertThat(read(429, "{\"retry_after\":" + digits + "}").retryAfter()).isEqualTo(WireNumbers.MAX_DURATION);
        assertThat(read(429, "{\"parameters\":{\"retry_after\":\"" + digits + "\"}}").retryAfter())
                .isEqualTo(WireNumbers.MAX_DURATION);
        assertThat(read(429, "{\"retry_after\":" + digits + ".5}").retryAfter()).isEqualTo(WireNumbers.MAX_DURATION);
        assertThat(read(429, "{\"retry_after\":-" + digits + "}").retryAfter()).as("negative: malformed").isNull();
    }

    /** Finding H for problem bodies: a 5,000-digit retry_after_s saturates and the problem is still read. */
    @Test
    void r03AFiveThousandDigitProblemRetryAfterSaturates() {
        RateLimitSnapshot s = read(429, "{\"type\":\"https://x/errors/rate_limited\",\"status\":429,\"retry_after_s\":"
                + "9".repeat(5_000) + "}", "Content-Type", "application/problem+json");
        assertThat(s.dialect()).isEqualTo("rfc9457");
        assertThat(s.retryAfter()).isEqualTo(WireNumbers.MAX_DURATION);
    }
}
