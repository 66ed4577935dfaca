package dev.sluice.wire.value;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class WireNumbersTest {

    private static final Duration SECOND = Duration.ofSeconds(1);
    private static final Duration MILLI = Duration.ofMillis(1);

    @ParameterizedTest
    @CsvSource({"0, 0", "5000, 5000", "' 42 ', 42", "007, 7", "9223372036854775807, 9223372036854775807",
        "9223372036854775808, 9223372036854775807", "99999999999999999999, 9223372036854775807"})
    void countsAreDigitsOnlyAndSaturate(String value, long expected) {
        assertThat(WireNumbers.parseCount(value)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1", "+1", "1.0", "120junk", "1e3", "inf", "\u0661\u0662", "1 2"})
    void anythingElseIsNotACount(String value) {
        assertThat(WireNumbers.parseCount(value)).isEqualTo(-1);
    }

    /** Reddit writes x-ratelimit-remaining as 599.0: a count written as a decimal, never overstated. */
    @ParameterizedTest
    @CsvSource({"599.0, 599", "0.5, 0", "12, 12", "' 3.99 ', 3", "99999999999999999999.5, 9223372036854775807"})
    void decimalCountsRoundDown(String value, long expected) {
        assertThat(WireNumbers.parseDecimalCount(value)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-1.0", "+1", "1.", ".5", "1e3", "5 0"})
    void malformedDecimalCountsAreRejected(String value) {
        assertThat(WireNumbers.parseDecimalCount(value)).isEqualTo(-1);
    }

    /** R02: fractional seconds are rounded up to the granularity asked for. */
    @ParameterizedTest
    @CsvSource({"0.503, 1000", "0.493, 1000", "1.5, 2000", "2.0, 2000", "292.052427053, 293000", "2.128, 3000",
        "0, 0", "7, 7000"})
    void decimalSecondsRoundUpToWholeSeconds(String value, long millis) {
        assertThat(WireNumbers.parseDecimal(value, SECOND, SECOND)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @CsvSource({"64.57, 64570", "0.012, 12", "0.0001, 1", "1470173023.123, 1470173023123"})
    void decimalSecondsRoundUpToMilliseconds(String value, long millis) {
        assertThat(WireNumbers.parseDecimal(value, SECOND, MILLI)).isEqualTo(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"inf", "nan", "1e10000", "-1", "+3", ".5", "5.", "1.2.3", "", "0x10", "\u0661"})
    void nonDecimalsAreRejected(String value) {
        assertThat(WireNumbers.parseDecimal(value, SECOND, SECOND)).isNull();
    }

    /** R03: huge values saturate at MAX_DURATION, whose millis and nanos still fit a long. */
    @ParameterizedTest
    @ValueSource(strings = {"9999999999", "99999999999999999999", "2147483648", "2147483647.5"})
    void hugeValuesSaturate(String value) {
        Duration d = WireNumbers.parseDecimal(value, SECOND, SECOND);
        assertThat(d).isEqualTo(WireNumbers.MAX_DURATION);
        assertThat(d.toNanos()).isPositive();
    }

    @Test
    void theSaturationValueIsTwoToTheThirtyFirstMinusOneSeconds() {
        assertThat(WireNumbers.MAX_DURATION).isEqualTo(Duration.ofSeconds(2_147_483_647L));
    }

    @Test
    void roundUpClampsNegativesToZero() {
        assertThat(WireNumbers.roundUp(Duration.ofSeconds(-43), SECOND)).isZero();
        assertThat(WireNumbers.roundUp(Duration.ofMillis(800), SECOND)).isEqualTo(SECOND);
    }
}
