package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ErrorBodyDialectTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "400|{\"error\":{\"type\":\"invalid_request_error\",\"message\":\"x\",\"code\":\"rate_limit\"}}|stripe:rate_limit",
        "429|{\"errors\":[{\"code\":88,\"message\":\"x\"}]}|x:88",
        "429|{\"errorCode\":\"E0000047\",\"errorSummary\":\"x\"}|okta:E0000047",
        "429|{\"status\":429,\"code\":20429}|twilio:20429",
        "429|{\"ok\":false,\"error\":\"ratelimited\"}|slack:ratelimited",
    })
    void knownVendorCodesAreRateLimits(int status, String body, String code) {
        RateLimitSnapshot s = read(status, body);
        assertThat(s.dialect()).isEqualTo("error-body");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.attributes()).containsEntry("error_code", code);
    }

    @Test
    void aJsonRetryAfterAndLimitAreRead() {
        RateLimitSnapshot s = read(429, "{\"error\":\"Rate limit exceeded\",\"limit\":2,\"current\":2,\"retry_after\":1.25}");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(1250));
        assertThat(s.policies().get(0).quota()).isEqualTo(2L);
        assertThat(s.policies().get(0).remaining()).isZero();
    }

    @Test
    void aDailyLimitInTheErrorTextIsQuotaExhausted() {
        assertThat(read(429, "{\"error\":\"Daily limit exceeded\",\"limit\":5000,\"retry_after\":41200}").outcome())
                .isEqualTo(Outcome.QUOTA_EXHAUSTED);
    }

    @Test
    void plainTextAndHtmlBodiesOnNon429StatusesAreRecognisedByTheirWords() {
        assertThat(read(403, "<html><title>Number of allowed queries exceeded.</title></html>").outcome())
                .isEqualTo(Outcome.RATE_LIMITED);
        assertThat(read(422, "{\"description\":[\"Your access is too fast,please try again later.\"]}").outcome())
                .isEqualTo(Outcome.RATE_LIMITED);
        assertThat(read(403, "<html>Forbidden</html>").outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(read(400, "{\"error\":\"bad field\"}").outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(read(404, "<h1>Docs: how our rate limit works</h1>").outcome()).isEqualTo(Outcome.CLIENT_ERROR);
    }

    @Test
    void aNegativeJsonRetryAfterIsIgnored() {
        assertThat(read(429, "{\"retry_after\":-3}").retryAfter()).isNull();
    }

    @Test
    void aJsonRetryAfterTooLargeForADoubleSaturates() {
        assertThat(read(429, "{\"retry_after\":1e400}").retryAfter()).isEqualTo(WireNumbers.MAX_DURATION);
    }
}
