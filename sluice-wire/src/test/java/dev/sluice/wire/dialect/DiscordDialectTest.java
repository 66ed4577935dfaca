package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class DiscordDialectTest {

    @Test
    void bodyRetryAfterIsThePreciseWaitAndBeatsTheRoundedHeader() {
        RateLimitSnapshot s = read(429, "{\"message\":\"You are being rate limited.\",\"retry_after\":64.57,\"global\":false}",
                "Retry-After", "65", "X-RateLimit-Limit", "10", "X-RateLimit-Remaining", "0",
                "X-RateLimit-Reset", "1470173023.123", "X-RateLimit-Reset-After", "64.57",
                "X-RateLimit-Bucket", "abcd1234", "X-RateLimit-Scope", "user");
        assertThat(s.dialect()).isEqualTo("discord");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(64_570));
        assertThat(s.policies().get(0).name()).isEqualTo("abcd1234");
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofMillis(64_570));
        // both resets are stated; resetAt is the one waited for (Reset-After, from receipt),
        // not the 2016 epoch of the docs' example
        assertThat(s.policies().get(0).resetAt()).isEqualTo(Responses.LOCAL_NOW.plusMillis(64_570));
        assertThat(s.attributes()).containsEntry("bucket", "abcd1234").containsEntry("scope", "user");
    }

    @Test
    void resetAtIsTheResetWaitedForWhenBothAnAbsoluteAndARelativeOneAreStated() {
        // https://discord.com/developers/docs/topics/rate-limits: X-RateLimit-Reset is an epoch with a
        // fraction, X-RateLimit-Reset-After the seconds until then; the two disagree by the time the
        // epoch was truncated. The SDK waits Reset-After, so explain's reset_at must name that instant.
        RateLimitSnapshot s = read(200, null, "Date", "Mon, 30 Nov 2026 18:00:00 GMT",
                "X-RateLimit-Limit", "5", "X-RateLimit-Remaining", "0",
                "X-RateLimit-Reset", "1796061600.5", "X-RateLimit-Reset-After", "1.0",
                "X-RateLimit-Bucket", "b");
        var p = s.policies().get(0);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.absoluteReset()).isFalse();
        assertThat(p.resetAt()).isEqualTo(java.time.Instant.parse("2026-11-30T18:00:01Z"));
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(1));
    }

    @Test
    void aGlobalLimitHasNoPolicyButSaysGlobal() {
        RateLimitSnapshot s = read(429, "{\"message\":\"You are being rate limited.\",\"retry_after\":1.5,\"global\":true}",
                "Retry-After", "2", "X-RateLimit-Global", "true");
        assertThat(s.policies()).isEmpty();
        assertThat(s.attributes()).containsEntry("global", "true").containsEntry("scope", "global");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(1500));
    }
}
