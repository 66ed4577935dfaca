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
        assertThat(s.policies().get(0).resetAt().toEpochMilli()).isEqualTo(1_470_173_023_123L);
        assertThat(s.attributes()).containsEntry("bucket", "abcd1234").containsEntry("scope", "user");
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
