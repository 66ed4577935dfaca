package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class IetfDraft03DialectTest {

    @Test
    void r06Draft6SampleNormalisesToLimitRemainingResetAndWindow() {
        RateLimitSnapshot s = read(200, null, "RateLimit-Limit", "100", "RateLimit-Remaining", "50",
                "RateLimit-Reset", "30", "RateLimit-Policy", "100;w=60");
        assertThat(s.dialect()).isEqualTo("ietf-draft-03");
        PolicySnapshot p = s.policies().get(0);
        assertThat(p.quota()).isEqualTo(100L);
        assertThat(p.remaining()).isEqualTo(50L);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.windowSeconds()).isEqualTo(60L);
        assertThat(s.policies()).hasSize(1);
    }

    @Test
    void draft03LimitListCarriesTheQuotaPolicies() {
        RateLimitSnapshot s = read(200, null, "RateLimit-Limit", "10, 10;w=1, 50;w=60, 1000;w=3600, 5000;w=86400");
        assertThat(s.policies()).extracting(PolicySnapshot::quota).containsExactly(10L, 50L, 1000L, 5000L);
        assertThat(s.policies()).extracting(PolicySnapshot::windowSeconds).containsExactly(1L, 60L, 3600L, 86400L);
    }

    @Test
    void anEpochResetIsConvertedWithTheResponsesDate() {
        RateLimitSnapshot s = read(200, null, "Date", "Mon, 30 Nov 2026 17:59:00 GMT",
                "RateLimit-Limit", "60", "RateLimit-Reset", "1796061630"); // 2026-11-30T18:00:30Z
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(90));
        assertThat(s.policies().get(0).resetAt()).isEqualTo(Instant.parse("2026-11-30T18:00:30Z"));
    }
}
