package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class GitHubDialectTest {

    /**
     * R04 scenario 1: reset equals the server's Date. The parser records the exact wait, 0 s, and
     * marks it absolute; the +1 s safety margin R04 asks for is added by
     * {@code suggestedWait()} (see {@link SuggestedWaitTest}).
     */
    @Test
    void r04ResetEqualToDateIsAnExactZeroWait() {
        RateLimitSnapshot s = read(403, null, "Date", "Mon, 23 Oct 2023 21:48:42 GMT", "x-ratelimit-limit", "5000",
                "x-ratelimit-remaining", "0", "x-ratelimit-used", "5000", "x-ratelimit-reset", "1698097722",
                "x-ratelimit-resource", "core");
        assertThat(s.dialect()).isEqualTo("github");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ZERO);
        assertThat(s.policies().get(0).absoluteReset()).isTrue();
        assertThat(s.policies().get(0).resetAt()).isEqualTo(Instant.ofEpochSecond(1_698_097_722L));
        assertThat(s.attributes()).containsEntry("resource", "core").containsEntry("limit", "primary");
    }

    /** R04 scenario 2: Date T, reset T+30 s, local clock T+5 s: the wait is 30 s, not 25 s. */
    @Test
    void r04WaitIsServerRelativeWhateverTheLocalClockSkew() {
        Instant t = Instant.parse("2023-10-23T21:48:42Z");
        ResponseView r = new ResponseView(429, HttpFields.of("Date", "Mon, 23 Oct 2023 21:48:42 GMT",
                "x-ratelimit-remaining", "0", "x-ratelimit-reset", Long.toString(t.getEpochSecond() + 30),
                "x-ratelimit-resource", "core"), null);
        RateLimitSnapshot s = DialectRegistry.standard().read(r, t.plusSeconds(5));
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void withoutDateTheLocalClockIsNow() {
        Instant local = Instant.parse("2023-10-23T21:48:42Z");
        ResponseView r = new ResponseView(200, HttpFields.of("x-ratelimit-reset", Long.toString(local.getEpochSecond() + 30),
                "x-ratelimit-resource", "core"), null);
        assertThat(DialectRegistry.standard().read(r, local).policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void aSecondaryLimitIsA403WithAMessageOrRetryAfter() {
        assertThat(read(403, "{\"message\":\"You have exceeded a secondary rate limit. Please wait a few minutes.\"}",
                "x-github-request-id", "A:B").outcome()).isEqualTo(Outcome.RATE_LIMITED);
        RateLimitSnapshot withHint = read(403, "{\"message\":\"slow down\"}", "Retry-After", "60",
                "x-ratelimit-remaining", "4000", "x-ratelimit-resource", "core");
        assertThat(withHint.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(withHint.retryAfter()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void aPermission403IsAClientErrorEvenWithRateLimitFields() {
        RateLimitSnapshot s = read(403, "{\"message\":\"Resource not accessible by integration\"}",
                "x-ratelimit-limit", "5000", "x-ratelimit-remaining", "4999", "x-ratelimit-resource", "core");
        assertThat(s.outcome()).isEqualTo(Outcome.CLIENT_ERROR);
        assertThat(s.policies().get(0).remaining()).isEqualTo(4999L);
    }
}
