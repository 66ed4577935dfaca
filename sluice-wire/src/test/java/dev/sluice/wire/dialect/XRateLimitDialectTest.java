package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class XRateLimitDialectTest {

    private static final String DATE = "Mon, 30 Nov 2026 18:00:00 GMT";

    @Test
    void autoReadsEpochSecondsWithTheResponsesDate() {
        PolicySnapshot p = read(200, null, "Date", DATE, "X-RateLimit-Limit", "500", "X-RateLimit-Remaining", "499",
                "X-RateLimit-Reset", "1796061645").policies().get(0);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(45));
        assertThat(p.resetAt()).isEqualTo(Instant.ofEpochSecond(1_796_061_645L));
    }

    @Test
    void autoReadsEpochMillisecondsAndDeltaSeconds() {
        assertThat(read(200, null, "Date", DATE, "X-RateLimit-Reset", "1796061645250").policies().get(0).resetIn())
                .isEqualTo(Duration.ofMillis(45_250));
        assertThat(read(200, null, "Date", DATE, "X-RateLimit-Reset", "2615").policies().get(0).resetIn())
                .isEqualTo(Duration.ofSeconds(2615));
    }

    @Test
    void hyphenatedRateLimitSpellingIsTheSameFamily() {
        RateLimitSnapshot s = read(200, null, "x-rate-limit-limit", "900", "x-rate-limit-remaining", "847");
        assertThat(s.dialect()).isEqualTo("x-ratelimit");
        assertThat(s.policies().get(0).quota()).isEqualTo(900L);
    }

    @Test
    void aLimitListWithWindowParametersGivesTheWindowAndFurtherPolicies() {
        RateLimitSnapshot s = read(200, null, "X-RateLimit-Limit", "100, 100;window=60, 10000;window=86400",
                "X-RateLimit-Remaining", "98", "X-RateLimit-Reset", "3");
        assertThat(s.policies()).extracting(PolicySnapshot::quota).containsExactly(100L, 10_000L);
        assertThat(s.policies()).extracting(PolicySnapshot::windowSeconds).containsExactly(60L, 86_400L);
    }

    @Test
    void aServerWithAKnownResetUnitGetsItsOwnInstance() {
        DialectRegistry registry = DialectRegistry.standard().toBuilder()
                .registerFirst(XRateLimitDialect.of("prisjakt", ResetUnit.DELTA_MILLIS)).build();
        RateLimitSnapshot s = registry.read(Responses.response(429, null, "X-Rate-Limit-Remaining", "0",
                "X-Rate-Limit-Reset", "600000"), Responses.LOCAL_NOW);
        assertThat(s.dialect()).isEqualTo("prisjakt");
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofMinutes(10));
    }

    @Test
    void garbageValuesAreUnknownNotFatal() {
        PolicySnapshot p = read(200, null, "X-RateLimit-Limit", "lots", "X-RateLimit-Remaining", "-5",
                "X-RateLimit-Reset", "soon").policies().get(0);
        assertThat(p.quota()).isNull();
        assertThat(p.remaining()).isNull();
        assertThat(p.resetIn()).isNull();
    }
}
