package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Epoch, delta or milliseconds: a reset is read in its dialect's unit only when it is plausible in
 * that unit (review finding A; {@link ResetUnit}).
 */
class ResetInterpretationTest {

    /** The Reddit capture of reddit-archive/reddit#1458. */
    private static final String REDDIT_DATE = "Fri, 06 Nov 2015 23:31:39 GMT";

    /**
     * Finding A. Reddit API wiki: {@code X-Ratelimit-Reset} is the "number of seconds to end of
     * period"; the capture is from reddit-archive/reddit#1458. It carries GitHub's
     * {@code x-ratelimit-used}, which must not force an epoch reading of 502 (1970-01-01T00:08:22Z).
     */
    @Test
    void redditResetIsSecondsToTheEndOfThePeriodNotA1970Epoch() {
        RateLimitSnapshot s = read(200, null, "Date", REDDIT_DATE, "x-ratelimit-used", "1",
                "x-ratelimit-remaining", "599.0", "x-ratelimit-reset", "502");
        PolicySnapshot p = s.policies().get(0);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(502));
        assertThat(p.resetAt()).isEqualTo(Instant.parse("2015-11-06T23:40:01Z"));
        assertThat(p.absoluteReset()).isFalse();
        assertThat(p.used()).isEqualTo(1L);
        assertThat(s.dialect()).as("a delta reset is not GitHub's").isEqualTo("x-ratelimit");
    }

    /** Finding A: Reddit's remaining is written as a decimal ({@code 599.0}); it must parse. */
    @Test
    void redditDecimalRemainingParsesRoundedDown() {
        assertThat(read(200, null, "x-ratelimit-used", "1", "x-ratelimit-remaining", "599.0",
                "x-ratelimit-reset", "502").policies().get(0).remaining()).isEqualTo(599L);
        // never overstated: half a request left is none
        assertThat(read(200, null, "x-ratelimit-remaining", "0.5").policies().get(0).remaining()).isZero();
    }

    /** Finding A: on Reddit's 429 with {@code x-ratelimit-reset: 342} the wait is 342 s (a delta: no margin). */
    @Test
    void reddit429WaitsTheResetSeconds() {
        RateLimitSnapshot s = read(429, null, "Date", REDDIT_DATE, "x-ratelimit-used", "600",
                "x-ratelimit-remaining", "0.0", "x-ratelimit-reset", "342");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(342));
        assertThat(s.longestWait()).isEqualTo(Duration.ofSeconds(342));
    }

    /** Finding A generalised: the GitHub dialect itself reads a delta that cannot be an epoch as a delta. */
    @Test
    void aGitHubResetThatCannotBeAnEpochIsReadAsADelta() {
        RateLimitSnapshot s = read(429, null, "Date", REDDIT_DATE, "x-ratelimit-resource", "core",
                "x-ratelimit-remaining", "0", "x-ratelimit-reset", "60");
        assertThat(s.dialect()).isEqualTo("github");
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.policies().get(0).absoluteReset()).isFalse();
    }

    /** An epoch in milliseconds where seconds are documented is read as milliseconds, not the year 55,800. */
    @Test
    void anEpochInMillisecondsInAnEpochSecondsFieldIsReadAsMilliseconds() {
        RateLimitSnapshot s = read(429, null, "Date", "Mon, 23 Oct 2023 21:48:42 GMT", "x-ratelimit-resource", "core",
                "x-ratelimit-remaining", "0", "x-ratelimit-reset", "1698097752000");
        assertThat(s.policies().get(0).resetIn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.policies().get(0).absoluteReset()).isTrue();
    }

    /**
     * The rules of {@link ResetUnit}, relative to a response dated 2023-10-23T21:48:42Z (epoch
     * 1,698,097,722): below 10^9 no unit gives a plausible epoch; an epoch is plausible up to ten
     * years after the response; beyond that a number is a (saturating) delta.
     */
    @ParameterizedTest
    @CsvSource({
        // unit, value, resetIn ms, absolute
        "EPOCH_SECONDS, 502, 502000, false",
        "EPOCH_SECONDS, 999999999, 999999999000, false",
        "EPOCH_SECONDS, 1698097782, 60000, true",
        "EPOCH_SECONDS, 1698097782.25, 60250, true",
        "EPOCH_MILLIS, 1698097782000, 60000, true",
        "EPOCH_MILLIS, 60000, 60000, false",
        "AUTO, 2615, 2615000, false",
        "AUTO, 1698097782, 60000, true",
        "AUTO, 1698097782000, 60000, true",
        "AUTO, 1698097782000000, 60000, true",
        "AUTO, 1698097782000000000, 60000, true",
        "DELTA_SECONDS, 30, 30000, false",
        "DELTA_SECONDS, 1698097782, 60000, true",
        "DELTA_MILLIS, 600000, 600000, false",
        "DELTA_MILLIS, 1698097782000, 60000, true",
    })
    void aResetIsReadInItsUnitOnlyWhenPlausibleThere(ResetUnit unit, String value, long resetMillis, boolean absolute) {
        Instant date = Instant.parse("2023-10-23T21:48:42Z");
        PolicySnapshot.Builder p = PolicySnapshot.builder();
        assertThat(unit.apply(value, date, p)).isTrue();
        PolicySnapshot policy = p.build();
        assertThat(policy.resetIn()).isEqualTo(Duration.ofMillis(resetMillis));
        assertThat(policy.absoluteReset()).isEqualTo(absolute);
    }

    /** R03: an epoch far beyond the response is no reset: a huge delta, saturated, never vanished. */
    @Test
    void r03AnImplausiblyDistantEpochSaturatesAsADelta() {
        Instant date = Instant.parse("2023-10-23T21:48:42Z");
        for (String v : new String[] {"9999999999", "99999999999999999999"}) {
            PolicySnapshot.Builder p = PolicySnapshot.builder();
            assertThat(ResetUnit.AUTO.apply(v, date, p)).isTrue();
            assertThat(p.build().resetIn()).isEqualTo(WireNumbers.MAX_DURATION);
        }
    }

    /** A past epoch (the window already rolled over) is a zero wait, not a delta of decades (R01's rule for dates). */
    @Test
    void aPastEpochIsAZeroWait() {
        PolicySnapshot.Builder p = PolicySnapshot.builder();
        ResetUnit.EPOCH_SECONDS.apply("1698097700", Instant.parse("2023-10-23T21:48:42Z"), p);
        assertThat(p.build().resetIn()).isZero();
        assertThat(p.build().absoluteReset()).isTrue();
    }
}
