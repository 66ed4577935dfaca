package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.http.ResponseView;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link RateLimitSnapshot#suggestedWait(Duration)}, the one definition of "how long to wait"
 * (review findings B, C, F; SPEC §2.4, §2.5, §4.3; R04, R06).
 */
class SuggestedWaitTest {

    private static final String R04_DATE = "Mon, 23 Oct 2023 21:48:42 GMT";

    /** Finding C, R04 scenario 1: reset equal to the server's Date waits the 1 s margin, not 0. */
    @Test
    void r04ResetEqualToDateWaitsTheOneSecondMargin() {
        RateLimitSnapshot s = read(403, null, "Date", R04_DATE, "x-ratelimit-limit", "5000",
                "x-ratelimit-remaining", "0", "x-ratelimit-used", "5000", "x-ratelimit-reset", "1698097722",
                "x-ratelimit-resource", "core");
        assertThat(s.policies().get(0).resetIn()).isZero(); // the exact value stays exact
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(1));
    }

    /** R04 scenario 2: Date T, reset T + 30 s, local clock T + 5 s: 31 s, not 25 s. */
    @Test
    void r04AbsoluteResetWaitsServerRelativePlusTheMarginWhateverTheLocalSkew() {
        Instant t = Instant.parse("2023-10-23T21:48:42Z");
        ResponseView r = new ResponseView(429, HttpFields.of("Date", R04_DATE, "x-ratelimit-remaining", "0",
                "x-ratelimit-reset", Long.toString(t.getEpochSecond() + 30), "x-ratelimit-resource", "core"), null);
        assertThat(DialectRegistry.standard().read(r, t.plusSeconds(5)).suggestedWait()).contains(Duration.ofSeconds(31));
    }

    /** R04: "if Date is absent, fall back to local time but keep the +1 s margin". */
    @Test
    void r04WithoutDateTheLocalClockIsUsedAndTheMarginKept() {
        Instant local = Instant.parse("2023-10-23T21:48:42Z");
        ResponseView r = new ResponseView(429, HttpFields.of("x-ratelimit-remaining", "0",
                "x-ratelimit-reset", Long.toString(local.getEpochSecond() + 10), "x-ratelimit-resource", "core"), null);
        assertThat(DialectRegistry.standard().read(r, local).suggestedWait()).contains(Duration.ofSeconds(11));
    }

    /** A relative reset is the server's own ceiling: no margin (draft-11 t). */
    @Test
    void aRelativeResetIsWaitedExactly() {
        assertThat(read(429, null, "RateLimit", "\"burst\";r=0;t=2").suggestedWait()).contains(Duration.ofSeconds(2));
    }

    /** The margin is the caller's to choose; R04 asks for at least 1 s, and a negative one is refused. */
    @Test
    void theMarginIsAParameterAndAppliesToAbsoluteResetsOnly() {
        RateLimitSnapshot s = read(429, null, "Date", R04_DATE, "x-ratelimit-remaining", "0",
                "x-ratelimit-reset", "1698097732", "x-ratelimit-resource", "core");
        assertThat(s.suggestedWait(Duration.ofSeconds(2))).contains(Duration.ofSeconds(12));
        assertThatThrownBy(() -> s.suggestedWait(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class);
    }

    /** Finding B, SPEC §2.5: a cached response's limit fields are ignored for pacing, in every wait helper. */
    @Test
    void aCachedResponsesPoliciesSetNoWait() {
        RateLimitSnapshot s = read(200, null, "Age", "30", "RateLimit", "\"burst\";r=0;t=1");
        assertThat(s.cached()).isTrue();
        assertThat(s.age()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.suggestedWait()).isEmpty();
        assertThat(s.longestWait()).isZero();
        assertThat(s.mostRestrictive()).isEmpty();
        // the same fields, not cached, do set a wait
        assertThat(read(200, null, "RateLimit", "\"burst\";r=0;t=1").suggestedWait()).contains(Duration.ofSeconds(1));
    }

    /**
     * Finding B: a Retry-After counts from when the origin produced the response; a cache that held
     * it for Age seconds has spent that much of it.
     */
    @Test
    void aCachedRetryAfterIsReducedByItsAge() {
        RateLimitSnapshot s = read(429, null, "Age", "30", "Retry-After", "40", "RateLimit", "\"burst\";r=0;t=90");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(40)); // as the origin said it
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(10));
        assertThat(s.longestWait()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aCachedRetryAfterOlderThanItsHintLeavesNothingToWait() {
        assertThat(read(429, null, "Age", "689", "Retry-After", "60").suggestedWait()).contains(Duration.ZERO);
    }

    /** An HTTP-date on a cached response without Date: the origin's time is the local clock less Age. */
    @Test
    void aCachedHttpDateRetryAfterWithoutDateCountsFromTheOriginsTime() {
        // local 18:00:00, Age 30 -> produced 17:59:30; date 18:00:20 -> 50 s after production, 20 s left now
        RateLimitSnapshot s = read(429, null, "Age", "30", "Retry-After", "Mon, 30 Nov 2026 18:00:20 GMT");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(50));
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(20));
    }

    /** A malformed Age marks the response cached but subtracts nothing: waiting longer, never less. */
    @Test
    void aMalformedAgeIsCachedButReducesNothing() {
        RateLimitSnapshot s = read(429, null, "Age", "old", "Retry-After", "40", "RateLimit", "\"burst\";r=0;t=90");
        assertThat(s.cached()).isTrue();
        assertThat(s.age()).isNull();
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(40));
    }

    /** SPEC §2.4: never shorter than any hint; R06: the longest spent policy. */
    @Test
    void theWaitIsTheLongestOfTheHintAndEveryGoverningPolicy() {
        assertThat(read(429, null, "Retry-After", "10", "RateLimit", "\"burst\";r=0;t=2").suggestedWait())
                .contains(Duration.ofSeconds(10));
        assertThat(read(429, null, "Retry-After", "1", "RateLimit", "\"burst\";r=0;t=2, \"hourly\";r=0;t=1800")
                .suggestedWait()).contains(Duration.ofSeconds(1800));
        // a policy with allowance left does not hold the caller back
        assertThat(read(429, null, "Retry-After", "1", "RateLimit", "\"burst\";r=0;t=2, \"daily\";r=40;t=21600")
                .suggestedWait()).contains(Duration.ofSeconds(2));
    }

    /** A limit answer's named policy governs even when its remaining is not reported as 0. */
    @Test
    void theNamedPolicyOfALimitGoverns() {
        RateLimitSnapshot s = new RateLimitSnapshot(429, Outcome.QUOTA_EXHAUSTED, "test", null, false,
                List.of(policy("burst", 5L, 2, false), policy("daily", null, 19_200, false)), "daily", null, Map.of());
        assertThat(s.suggestedWait()).contains(Duration.ofSeconds(19_200));
    }

    /** On a limit with nothing spent or named, the one policy that reports a reset (GitHub secondary, Azure OpenAI). */
    @Test
    void onALimitTheOnlyPolicyWithAResetGoverns() {
        RateLimitSnapshot one = new RateLimitSnapshot(429, Outcome.RATE_LIMITED, "test", null, false,
                List.of(policy("requests", 40L, null, false), policy("tokens", 1200L, 55, false)), null, null, Map.of());
        assertThat(one.suggestedWait()).contains(Duration.ofSeconds(55));
        RateLimitSnapshot two = new RateLimitSnapshot(429, Outcome.RATE_LIMITED, "test", null, false,
                List.of(policy("a", 40L, 5, false), policy("b", 1200L, 55, false)), null, null, Map.of());
        assertThat(two.suggestedWait()).as("ambiguous: the caller's own backoff").isEmpty();
        RateLimitSnapshot ok = new RateLimitSnapshot(200, Outcome.OK, "test", null, false,
                List.of(policy("tokens", 1200L, 55, false)), null, null, Map.of());
        assertThat(ok.suggestedWait()).as("a success with allowance left implies no wait").isEmpty();
    }

    @Test
    void nothingToGoOnIsEmptyAndRetryAfterZeroIsZero() {
        assertThat(read(429, null).suggestedWait()).isEmpty();
        assertThat(read(503, null, "Retry-After", "0").suggestedWait()).contains(Duration.ZERO);
    }

    /** R03: a saturated reset plus the margin stays saturated, never overflows. */
    @Test
    void r03AHugeAbsoluteWaitSaturates() {
        RateLimitSnapshot s = new RateLimitSnapshot(429, Outcome.RATE_LIMITED, "test", null, false,
                List.of(new PolicySnapshot("x", null, null, 0L, WireNumbers.MAX_DURATION, null, PolicyKind.UNKNOWN,
                        null, null, Map.of(), true)), null, null, Map.of());
        assertThat(s.suggestedWait()).contains(WireNumbers.MAX_DURATION);
    }

    private static PolicySnapshot policy(String name, Long remaining, Integer resetSeconds, boolean absolute) {
        return new PolicySnapshot(name, null, null, remaining, resetSeconds == null ? null : Duration.ofSeconds(resetSeconds),
                null, PolicyKind.UNKNOWN, null, null, Map.of(), absolute);
    }
}
