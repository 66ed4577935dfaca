package dev.sluice.delivery.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.wire.http.HttpFields;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryRulesTest {

    static final Instant NOW = Instant.parse("2026-03-01T12:00:00Z");
    static final Instant FAR = NOW.plus(Duration.ofDays(3));

    /** Always the lowest jitter (0) or the highest (0.5 s), to check both ends exactly. */
    static RandomGenerator fixed(long value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return value;
            }

            @Override
            public long nextLong(long bound) {
                return Math.min(value, bound - 1);
            }
        };
    }

    static final RandomGenerator LOWEST = fixed(0);
    static final RandomGenerator HIGHEST = fixed(Long.MAX_VALUE);

    static TransportResult answer(int status) {
        return new TransportResult.Answered(status, HttpFields.empty(), Duration.ofMillis(5));
    }

    @ParameterizedTest(name = "attempt {0} backs off {1} s")
    @CsvSource({"1, 2", "2, 4", "3, 8", "4, 16", "8, 256", "9, 512", "10, 512", "30, 512"})
    void backoffIsTwoToTheAttemptCappedAtTheNinthPower(int attempt, long seconds) {
        // §6.3: min(900, 2^min(attempt, 9)) s
        assertThat(RetryRules.backoff(attempt)).isEqualTo(Duration.ofSeconds(seconds));
    }

    @Test
    void backoffRefusesAttemptZero() {
        assertThatThrownBy(() -> RetryRules.backoff(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void jitterIsBetweenZeroAndHalfASecond() {
        // §6.3: + U(0, 0.5) s
        assertThat(RetryRules.waitBeforeRetry(1, Optional.empty(), LOWEST)).isEqualTo(Duration.ofSeconds(2));
        assertThat(RetryRules.waitBeforeRetry(1, Optional.empty(), HIGHEST)).isEqualTo(Duration.ofMillis(2_500));
        SplittableRandom seeded = new SplittableRandom(42);
        for (int i = 0; i < 1_000; i++) {
            Duration w = RetryRules.waitBeforeRetry(3, Optional.empty(), seeded);
            assertThat(w).isBetween(Duration.ofSeconds(8), Duration.ofMillis(8_500));
        }
    }

    @Test
    void aRetryAfterReplacesTheBackoff() {
        assertThat(RetryRules.waitBeforeRetry(9, Optional.of(Duration.ofSeconds(7)), LOWEST))
                .isEqualTo(Duration.ofSeconds(7));
    }

    @Test
    void aRetryAfterBelowOneSecondIsClampedUpToOne() {
        // §6.3: clamp to [1, 900] s; "Retry-After: 0" still waits 1 s
        assertThat(RetryRules.waitBeforeRetry(1, Optional.of(Duration.ZERO), LOWEST)).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aRetryAfterAbove900SecondsIsHonouredNotShortened() {
        // R03: never retry before an accepted hint; the event's maximum age bounds it instead
        assertThat(RetryRules.waitBeforeRetry(1, Optional.of(Duration.ofSeconds(3_600)), LOWEST))
                .isEqualTo(Duration.ofSeconds(3_600));
    }

    @Test
    void aRetryAfterBeyondTheMaximumIsIgnoredAndTheBackoffApplies() {
        // a year-long hint (beyond max-retry-after, 24 h by default) is treated as invalid: backoff 2^2 s
        Duration year = Duration.ofDays(365);
        assertThat(RetryRules.decide(answer(429), 2, true, Optional.of(year), NOW, NOW.plus(Duration.ofDays(400)),
                RetryRules.DEFAULT_MAX_RETRY_AFTER, LOWEST))
                .isEqualTo(new RetryDecision.RetryAt(Duration.ofSeconds(4), NOW.plusSeconds(4)));
        assertThat(RetryRules.honoured(Optional.of(year), RetryRules.DEFAULT_MAX_RETRY_AFTER)).isEmpty();
        // exactly the maximum is still honoured
        Duration day = Duration.ofHours(24);
        assertThat(RetryRules.decide(answer(429), 2, true, Optional.of(day), NOW, NOW.plus(Duration.ofDays(3)),
                RetryRules.DEFAULT_MAX_RETRY_AFTER, LOWEST))
                .isEqualTo(new RetryDecision.RetryAt(day, NOW.plus(day)));
        // a smaller configured maximum moves the line
        assertThat(RetryRules.decide(answer(503), 1, true, Optional.of(Duration.ofMinutes(11)), NOW, FAR,
                Duration.ofMinutes(10), LOWEST))
                .isEqualTo(new RetryDecision.RetryAt(Duration.ofSeconds(2), NOW.plusSeconds(2)));
    }

    @Test
    void anHonouredRetryAfterEndingAfterTheMaximumAgeDeadLettersWithItsOwnReason() {
        // a valid 2 h hint, an event with 1 h left: retrying earlier would undercut it (R03), so the
        // event is dead-lettered now, saying why
        Instant expires = NOW.plus(Duration.ofHours(1));
        assertThat(RetryRules.decide(answer(429), 1, true, Optional.of(Duration.ofHours(2)), NOW, expires,
                RetryRules.DEFAULT_MAX_RETRY_AFTER, LOWEST))
                .isEqualTo(new RetryDecision.DeadLetter(DeadLetterReason.RETRY_AFTER_BEYOND_MAX_AGE));
        assertThat(DeadLetterReason.RETRY_AFTER_BEYOND_MAX_AGE.dbValue()).isEqualTo("retry_after_beyond_max_age");
        // the backoff alone running past the maximum age is still plain expiry
        assertThat(RetryRules.decide(answer(503), 2, true, Optional.empty(), NOW, NOW.plusSeconds(3),
                RetryRules.DEFAULT_MAX_RETRY_AFTER, LOWEST))
                .isEqualTo(new RetryDecision.DeadLetter(DeadLetterReason.EXPIRED));
    }

    @ParameterizedTest(name = "{0} is retried")
    @CsvSource({"408", "429", "500", "502", "503", "504"})
    void theSixRetryableStatusesAreRetried(int status) {
        RetryDecision d = RetryRules.decide(answer(status), 1, true, Optional.empty(), NOW, FAR, LOWEST);
        assertThat(d).isEqualTo(new RetryDecision.RetryAt(Duration.ofSeconds(2), NOW.plusSeconds(2)));
    }

    @ParameterizedTest(name = "{0} is terminal")
    @CsvSource({"400", "401", "403", "404", "409", "422", "301", "302", "501", "505", "100"})
    void everythingElseIsTerminal(int status) {
        RetryDecision d = RetryRules.decide(answer(status), 1, true, Optional.empty(), NOW, FAR, LOWEST);
        assertThat(d).isEqualTo(new RetryDecision.DeadLetter(DeadLetterReason.TERMINAL_RESPONSE));
    }

    @Test
    void a410IsTerminalWithItsOwnReason() {
        RetryDecision d = RetryRules.decide(answer(410), 1, true, Optional.empty(), NOW, FAR, LOWEST);
        assertThat(d).isEqualTo(new RetryDecision.DeadLetter(DeadLetterReason.DESTINATION_GONE));
    }

    @ParameterizedTest(name = "{0} is a success")
    @CsvSource({"200", "201", "202", "204", "299"})
    void every2xxIsDelivered(int status) {
        assertThat(RetryRules.decide(answer(status), 1, true, Optional.empty(), NOW, FAR, LOWEST))
                .isEqualTo(new RetryDecision.Deliver());
    }

    @Test
    void ambiguousFailuresAreRetriedOnlyForIdempotentDestinations() {
        TransportResult timeout = new TransportResult.Failed(ResponseClass.TIMEOUT, "t", Duration.ofSeconds(3));
        TransportResult reset = new TransportResult.Failed(ResponseClass.CONNECTION_RESET, "r", Duration.ZERO);
        TransportResult refused = new TransportResult.Failed(ResponseClass.CONNECTION_FAILED, "c", Duration.ZERO);

        assertThat(RetryRules.decide(timeout, 1, true, Optional.empty(), NOW, FAR, LOWEST))
                .isInstanceOf(RetryDecision.RetryAt.class);
        assertThat(RetryRules.decide(timeout, 1, false, Optional.empty(), NOW, FAR, LOWEST))
                .isEqualTo(new RetryDecision.Review());
        assertThat(RetryRules.decide(reset, 1, false, Optional.empty(), NOW, FAR, LOWEST))
                .isEqualTo(new RetryDecision.Review());
        assertThat(RetryRules.decide(refused, 1, false, Optional.empty(), NOW, FAR, LOWEST))
                .isInstanceOf(RetryDecision.RetryAt.class);
    }

    @Test
    void aRetryPastTheMaximumAgeIsExpiredNow() {
        Instant expires = NOW.plusSeconds(3);
        assertThat(RetryRules.decide(answer(503), 2, true, Optional.empty(), NOW, expires, LOWEST))
                .isEqualTo(new RetryDecision.DeadLetter(DeadLetterReason.EXPIRED)); // 4 s > 3 s
        assertThat(RetryRules.decide(answer(503), 1, true, Optional.empty(), NOW, expires, LOWEST))
                .isInstanceOf(RetryDecision.RetryAt.class); // 2 s < 3 s
    }

    @Test
    void statusesMapToTheirResponseClasses() {
        assertThat(ResponseClass.ofStatus(429)).isEqualTo(ResponseClass.RATE_LIMITED);
        assertThat(ResponseClass.ofStatus(503)).isEqualTo(ResponseClass.OVERLOADED);
        assertThat(ResponseClass.ofStatus(502)).isEqualTo(ResponseClass.SERVER_ERROR);
        assertThat(ResponseClass.ofStatus(408)).isEqualTo(ResponseClass.REQUEST_TIMEOUT);
        assertThat(ResponseClass.ofStatus(410)).isEqualTo(ResponseClass.GONE);
        assertThat(ResponseClass.ofStatus(418)).isEqualTo(ResponseClass.CLIENT_ERROR);
        assertThat(ResponseClass.ofStatus(302)).isEqualTo(ResponseClass.UNEXPECTED_STATUS);
    }
}
