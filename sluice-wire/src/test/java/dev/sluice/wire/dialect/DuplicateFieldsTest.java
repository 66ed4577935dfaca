package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Review finding D: a field sent twice is one field whether it arrives as two lines or as one
 * comma-joined line (RFC 9110 §5.3), and where the values conflict the cautious one wins (SPEC
 * §2.4, "a hint is never undercut"): the longest wait, the lowest remaining, across duplicates and
 * across equivalent fields.
 */
class DuplicateFieldsTest {

    @Test
    void twoRetryAfterLinesGiveTheLongerWait() {
        assertThat(read(429, null, "Retry-After", "5", "Retry-After", "10").retryAfter())
                .isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aCommaJoinedRetryAfterIsTheSameAsTwoLines() {
        assertThat(read(429, null, "Retry-After", "5, 10").retryAfter()).isEqualTo(Duration.ofSeconds(10));
        assertThat(read(429, null, "Retry-After", "10, 5").retryAfter()).isEqualTo(Duration.ofSeconds(10));
    }

    /** The comma of an HTTP-date does not split it; a date beside a number is compared as a wait. */
    @Test
    void aCommaJoinedHttpDateStaysOneMember() {
        RateLimitSnapshot s = read(429, null, "Date", "Mon, 30 Nov 2026 18:00:00 GMT",
                "Retry-After", "Mon, 30 Nov 2026 18:01:00 GMT, 5");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void retryAfterMsNeverUndercutsALongerRetryAfter() {
        assertThat(read(429, null, "Retry-After", "5", "Retry-After-Ms", "1500").retryAfter())
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(read(429, null, "Retry-After", "1", "Retry-After-Ms", "1500").retryAfter())
                .isEqualTo(Duration.ofMillis(1500));
    }

    /** The whole seconds of Retry-After round a finer hint up: the finer one is the same hint (Discord, OpenAI). */
    @Test
    void wholeSecondsJustAboveAFinerHintAreThatHintRoundedUp() {
        assertThat(read(429, null, "Retry-After", "2", "Retry-After-Ms", "1500").retryAfter())
                .isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void theProblemsRetryAfterNeverUndercutsTheHeader() {
        RateLimitSnapshot s = read(429, "{\"type\":\"https://x/errors/rate_limited\",\"retry_after_s\":30}",
                "Content-Type", "application/problem+json", "Retry-After", "7");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void twoRemainingLinesOnA429GiveTheLowest() {
        RateLimitSnapshot s = read(429, null, "X-RateLimit-Limit", "100", "X-RateLimit-Remaining", "50",
                "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30");
        assertThat(s.policies().get(0).remaining()).isZero();
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(30));
        assertThat(read(429, null, "X-RateLimit-Remaining", "50, 0").policies().get(0).remaining()).isZero();
    }

    @Test
    void equivalentSpellingsCountAsOneFieldTheLowestRemainingAndLongestResetWinning() {
        RateLimitSnapshot s = read(429, null, "X-RateLimit-Remaining", "50", "X-Rate-Limit-Remaining", "0",
                "X-RateLimit-Reset", "5", "X-Rate-Limit-Reset", "30");
        assertThat(s.policies().get(0).remaining()).isZero();
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void twoResetLinesGiveTheLongerWait() {
        RateLimitSnapshot s = read(429, null, "x-ratelimit-limit-requests", "60", "x-ratelimit-remaining-requests", "0",
                "x-ratelimit-reset-requests", "1s", "x-ratelimit-reset-requests", "6m0s");
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofMinutes(6));
    }

    @Test
    void draft07KeysSentTwiceGiveTheLowestRemainingAndLongestReset() {
        RateLimitSnapshot s = read(429, null, "RateLimit", "limit=100, remaining=50, reset=5",
                "RateLimit", "remaining=0, reset=30");
        assertThat(s.policies().get(0).quota()).isEqualTo(100L);
        assertThat(s.policies().get(0).remaining()).isZero();
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void vendorFieldsSentTwiceGiveTheLowestRemaining() {
        assertThat(read(200, null, "X-Shopify-Shop-Api-Call-Limit", "32/40", "X-Shopify-Shop-Api-Call-Limit", "40/40")
                .policy("call-limit").orElseThrow().remaining()).isZero();
        RateLimitSnapshot zendesk = read(200, null, "zendesk-ratelimit-tickets-index", "total=100; remaining=99; resets=41",
                "zendesk-ratelimit-tickets-index", "total=100; remaining=3; resets=52");
        assertThat(zendesk.policy("tickets-index").orElseThrow().remaining()).isEqualTo(3L);
        assertThat(zendesk.policy("tickets-index").orElseThrow().resetIn()).isEqualTo(Duration.ofSeconds(52));
        assertThat(read(200, null, "x-ratelimit-resource", "core", "x-ratelimit-remaining", "4999",
                "x-ratelimit-remaining", "12").policies().get(0).remaining()).isEqualTo(12L);
    }

    /** A used count sent twice is read high: with no remaining field, the remaining it implies is the lower. */
    @Test
    void aUsedCountSentTwiceGivesTheHighest() {
        RateLimitSnapshot s = read(200, null, "X-RateLimit-Limit", "60", "X-RateLimit-Used", "10, 59");
        assertThat(s.policies().get(0).used()).isEqualTo(59L);
        assertThat(s.policies().get(0).remaining()).isEqualTo(1L);
    }

    /** Two RateLimit lines naming one policy (R06: intermediaries join lines) merge into one policy. */
    @Test
    void aPolicyReportedTwiceIsMergedCautiously() {
        RateLimitSnapshot s = read(429, null, "RateLimit-Policy", "\"burst\";q=20;w=2",
                "RateLimit", "\"burst\";r=5;t=1", "RateLimit", "\"burst\";r=0;t=2");
        assertThat(s.policies()).hasSize(1);
        assertThat(s.policies().get(0).remaining()).isZero();
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.policies().get(0).quota()).isEqualTo(20L);
    }
}
