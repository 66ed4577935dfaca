package dev.sluice.wire.retryafter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.wire.http.HttpFields;
import dev.sluice.wire.retryafter.RetryAfterHint.Delay;
import dev.sluice.wire.retryafter.RetryAfterHint.Form;
import dev.sluice.wire.retryafter.RetryAfterHint.Invalid;
import dev.sluice.wire.value.WireNumbers;
import java.time.Duration;
import java.time.Instant;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

    private static final Instant NOW = Instant.parse("2026-11-30T18:00:00Z");

    @Test
    void absentFieldIsAbsentNotInvalid() {
        assertThat(RetryAfter.parse(null, NOW)).isSameAs(RetryAfterHint.ABSENT);
        assertThat(RetryAfter.read(HttpFields.empty(), NOW)).isSameAs(RetryAfterHint.ABSENT);
        assertThat(RetryAfter.parseMillis(null)).isSameAs(RetryAfterHint.ABSENT);
    }

    @Test
    void delaySecondsAreRead() {
        assertThat(RetryAfter.parse("120", NOW)).isEqualTo(new Delay(Duration.ofSeconds(120), Form.DELAY_SECONDS, null));
    }

    @Test
    void zeroIsAValidHintDistinctFromAbsent() {
        assertThat(RetryAfter.parse("0", NOW).delay()).contains(Duration.ZERO);
    }

    /** R01: negative values are malformed (RFC 9110 delay-seconds = 1*DIGIT), never a negative wait. */
    @ParameterizedTest
    @ValueSource(strings = {"-1", "-5", "-43", "-0"})
    void r01NegativeDelaySecondsAreInvalid(String value) {
        assertThat(RetryAfter.parse(value, NOW)).isInstanceOf(Invalid.class);
    }

    @Test
    void r01NegativeRetryAfterMsIsInvalid() {
        assertThat(RetryAfter.parseMillis("-1")).isInstanceOf(Invalid.class);
    }

    @Test
    void r01HttpDateInThePastIsZeroNotMinusThirty() {
        Instant clientNow = Instant.parse("2015-10-21T07:28:30Z");
        RetryAfterHint hint = RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT", clientNow);
        assertThat(hint).isEqualTo(new Delay(Duration.ZERO, Form.HTTP_DATE, Instant.parse("2015-10-21T07:28:00Z")));
    }

    /** R02: fractional values are accepted and rounded up to whole seconds. */
    @ParameterizedTest
    @CsvSource({"0.503, 1", "0.493, 1", "1.5, 2", "292.052427053, 293", "2.128, 3", "2.0, 2", "' 2.5 ', 3"})
    void r02FractionalSecondsRoundUp(String value, long seconds) {
        assertThat(RetryAfter.parse(value, NOW))
                .isEqualTo(new Delay(Duration.ofSeconds(seconds), Form.DECIMAL_SECONDS, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"inf", "nan", "1e10000", "Infinity", "+3", "120junk", "1.5.2", "", "  ", "soon",
        "Wed, 21 Oct 2015", "\u0661\u0662"})
    void r02GarbageIsInvalid(String value) {
        assertThat(RetryAfter.parse(value, NOW)).isInstanceOf(Invalid.class);
    }

    /** R03: saturation instead of NumberFormatException / ArithmeticException. */
    @ParameterizedTest
    @ValueSource(strings = {"9999999999", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"})
    void r03HugeValuesSaturate(String value) {
        Duration d = RetryAfter.parse(value, NOW).delay().orElseThrow();
        assertThat(d).isEqualTo(WireNumbers.MAX_DURATION);
        assertThat(d.toMillis()).isEqualTo(2_147_483_647_000L);
    }

    @Test
    void r03AnHttpDateADayAheadIsADay() {
        assertThat(RetryAfter.parse("Tue, 01 Dec 2026 18:00:00 GMT", NOW).delay()).contains(Duration.ofDays(1));
    }

    @Test
    void r05GoDurationIsAcceptedLeniently() {
        assertThat(RetryAfter.parse("1m0s", NOW)).isEqualTo(new Delay(Duration.ofSeconds(60), Form.GO_DURATION, null));
    }

    @Test
    void anHttpDateIsMeasuredFromTheResponsesDateNotTheLocalClock() {
        // draft-ietf-httpapi-ratelimit-headers example: Date 09:27:00, Retry-After 09:27:05
        HttpFields h = HttpFields.of("Date", "Mon, 05 Aug 2019 09:27:00 GMT", "Retry-After", "Mon, 05 Aug 2019 09:27:05 GMT");
        Instant skewedLocalClock = Instant.parse("2019-08-05T09:26:00Z");
        assertThat(RetryAfter.read(h, skewedLocalClock).delay()).contains(Duration.ofSeconds(5));
    }

    @Test
    void withoutDateAnHttpDateIsMeasuredFromTheLocalClock() {
        HttpFields h = HttpFields.of("Retry-After", "Mon, 05 Aug 2019 09:27:05 GMT");
        assertThat(RetryAfter.read(h, Instant.parse("2019-08-05T09:27:01.250Z")).delay()).contains(Duration.ofMillis(3750));
    }

    @Test
    void anHttpDateIsReadAsUtcWhateverTheJvmDefaultZone() {
        TimeZone saved = TimeZone.getDefault();
        try {
            TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Chatham")); // UTC+12:45 / +13:45
            HttpFields h = HttpFields.of("Date", "Wed, 18 Sep 2019 05:33:23 GMT", "Retry-After", "Wed, 18 Sep 2019 05:34:00 GMT");
            assertThat(RetryAfter.read(h, NOW).delay()).contains(Duration.ofSeconds(37));
        } finally {
            TimeZone.setDefault(saved);
        }
    }

    @ParameterizedTest
    @CsvSource({"1500, 1500", "20.5, 21", "0, 0", "' 7 ', 7"})
    void retryAfterMsIsMillisecondsRoundedUp(String value, long millis) {
        assertThat(RetryAfter.parseMillis(value)).isEqualTo(new Delay(Duration.ofMillis(millis), Form.MILLISECONDS, null));
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "1s", "+5", "1e3", ""})
    void retryAfterMsGarbageIsInvalid(String value) {
        assertThat(RetryAfter.parseMillis(value)).isInstanceOf(Invalid.class);
    }

    /** SPEC §2.3 and R02/R13: written as whole seconds, rounded up, at least 1. */
    @ParameterizedTest
    @CsvSource({"800, 1", "493, 1", "292052, 293", "1000, 1", "19200000, 19200", "0, 1"})
    void writesDelaySecondsRoundedUpAndAtLeastOne(long millis, String field) {
        assertThat(RetryAfter.format(Duration.ofMillis(millis))).isEqualTo(field);
    }

    /**
     * Finding I, R02: a negative wait comes from a limiter's stale state; the server recomputes it
     * from current state instead of emitting it, so writing one is refused rather than silently
     * turned into "1".
     */
    @ParameterizedTest
    @ValueSource(longs = {-5_000, -43_000, -1})
    void r02ANegativeWaitIsRefusedNotClampedToOne(long millis) {
        assertThatThrownBy(() -> RetryAfter.format(Duration.ofMillis(millis)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("R02");
        assertThatThrownBy(() -> RetryAfter.delaySeconds(Duration.ofMillis(millis)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Finding D: two field lines and one comma-joined line are the same field (RFC 9110 §5.3); the longest wins. */
    @Test
    void twoLinesAndACommaJoinedLineGiveTheSameLongestDelay() {
        HttpFields twoLines = HttpFields.of("Retry-After", "5", "Retry-After", "10");
        assertThat(RetryAfter.read(twoLines, NOW).delay()).contains(Duration.ofSeconds(10));
        assertThat(RetryAfter.parse("5, 10", NOW).delay()).contains(Duration.ofSeconds(10));
        assertThat(RetryAfter.parse("10,5", NOW).delay()).contains(Duration.ofSeconds(10));
        // an invalid member is skipped when another is valid, and reported when none is
        assertThat(RetryAfter.parse("-1, 7", NOW).delay()).contains(Duration.ofSeconds(7));
        assertThat(RetryAfter.parse("-1, junk", NOW)).isInstanceOf(Invalid.class);
        assertThat(RetryAfter.parseMillis("1500, 2500").delay()).contains(Duration.ofMillis(2500));
        assertThat(RetryAfter.readMillis(HttpFields.of("retry-after-ms", "2500", "retry-after-ms", "1500")).delay())
                .contains(Duration.ofMillis(2500));
    }

    @Test
    void theCommaOfAnHttpDateDoesNotSplitIt() {
        Instant date = Instant.parse("2015-10-21T07:28:00Z");
        assertThat(RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT", date.minusSeconds(30)))
                .isEqualTo(new Delay(Duration.ofSeconds(30), Form.HTTP_DATE, date));
        assertThat(RetryAfter.parse("Wednesday, 21-Oct-15 07:28:00 GMT, 5", date.minusSeconds(30)).delay())
                .contains(Duration.ofSeconds(30));
    }

    @Test
    void writingSaturatesToo() {
        assertThat(RetryAfter.delaySeconds(Duration.ofDays(365L * 1000))).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void writtenValuesReadBackAsTheSameDelay() {
        for (long s : new long[] {1, 5, 19_200, 86_400}) {
            assertThat(RetryAfter.parse(RetryAfter.format(Duration.ofSeconds(s)), NOW).delay()).contains(Duration.ofSeconds(s));
        }
    }
}
