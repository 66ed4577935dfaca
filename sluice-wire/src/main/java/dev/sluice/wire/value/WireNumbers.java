package dev.sluice.wire.value;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Strict readers for the plain numbers that rate-limit fields carry: counts ({@code 5000}) and
 * seconds that may be fractional ({@code 64.57}, {@code 0.503}).
 *
 * <p>The whole value must match the grammar, never a prefix ({@code "120junk"} is not 120;
 * regression case R05). Signs, exponents, {@code inf} and {@code nan} are rejected. Huge values
 * saturate instead of overflowing (R03): a count at {@link Long#MAX_VALUE}, a duration at
 * {@link #MAX_DURATION}. Nothing here throws; invalid input gives {@code -1} or {@code null}.
 *
 * <p>Stateless and thread-safe.
 */
public final class WireNumbers {

    /**
     * The largest duration any Sluice wire reader yields: 2<sup>31</sup> − 1 seconds (about 68
     * years). Longer hints saturate here, so that {@link Duration#toMillis()} and
     * {@link Duration#toNanos()} of any parsed value never overflow (regression case R03).
     */
    public static final Duration MAX_DURATION = Duration.ofSeconds(Integer.MAX_VALUE);

    private static final long MAX_NANOS = MAX_DURATION.toNanos();

    private WireNumbers() {
    }

    /**
     * A non-negative decimal integer ({@code 1*DIGIT}), saturating at {@link Long#MAX_VALUE}.
     *
     * @param value the field value, already stripped of surrounding whitespace (OWS is tolerated)
     * @return the number, or {@code -1} when {@code value} is {@code null}, empty or not all digits
     */
    public static long parseCount(@Nullable String value) {
        if (value == null) {
            return -1;
        }
        String s = value.strip();
        int n = s.length();
        if (n == 0) {
            return -1;
        }
        long result = 0;
        boolean saturated = false;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            if (!saturated) {
                int d = c - '0';
                if (result > (Long.MAX_VALUE - d) / 10) {
                    saturated = true;
                } else {
                    result = result * 10 + d;
                }
            }
        }
        return saturated ? Long.MAX_VALUE : result;
    }

    /**
     * A non-negative count that a server wrote as a decimal ({@code 599.0}: Reddit's
     * {@code x-ratelimit-remaining}), rounded <em>down</em> to whole units so that a remaining
     * allowance is never overstated; plain digits read as {@link #parseCount(String)}.
     *
     * @param value {@code 1*DIGIT [ "." 1*DIGIT ]}; surrounding whitespace is tolerated
     * @return the whole part, saturating at {@link Long#MAX_VALUE}, or {@code -1} when {@code value}
     *     is {@code null} or does not match the grammar (signs, exponents, junk)
     */
    public static long parseDecimalCount(@Nullable String value) {
        if (value == null || !isDecimal(value)) {
            return -1;
        }
        String s = value.strip();
        int dot = s.indexOf('.');
        return parseCount(dot < 0 ? s : s.substring(0, dot));
    }

    /**
     * True when the whole value is a non-negative decimal: {@code 1*DIGIT [ "." 1*DIGIT ]}.
     */
    public static boolean isDecimal(@Nullable String value) {
        if (value == null) {
            return false;
        }
        String s = value.strip();
        int n = s.length();
        int i = 0;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        if (i == 0) {
            return false;
        }
        if (i == n) {
            return true;
        }
        if (s.charAt(i) != '.') {
            return false;
        }
        int fractionStart = ++i;
        while (i < n && isDigit(s.charAt(i))) {
            i++;
        }
        return i == n && i > fractionStart;
    }

    /**
     * A non-negative decimal number of {@code unit}s ({@code "64.57"} seconds, {@code "1500"}
     * milliseconds) as a {@link Duration}, rounded <em>up</em> to a whole multiple of
     * {@code roundUpTo} (so that a wait is never shorter than what the server said), saturating at
     * {@link #MAX_DURATION}.
     *
     * @param value {@code 1*DIGIT [ "." 1*DIGIT ]}; surrounding whitespace is tolerated
     * @param unit the unit of the number, e.g. {@code Duration.ofSeconds(1)}; positive, at most one
     *     day
     * @param roundUpTo the granularity of the result, e.g. {@code Duration.ofSeconds(1)} for
     *     Retry-After or {@code Duration.ofMillis(1)}; positive
     * @return the duration, or {@code null} when the value does not match the grammar
     */
    public static @Nullable Duration parseDecimal(@Nullable String value, Duration unit, Duration roundUpTo) {
        if (value == null || !isDecimal(value)) {
            return null;
        }
        String s = value.strip();
        long unitNanos = unit.toNanos();
        int dot = s.indexOf('.');
        String integerDigits = dot < 0 ? s : s.substring(0, dot);
        String fractionDigits = dot < 0 ? "" : s.substring(dot + 1);

        long whole = parseCount(integerDigits);
        // saturate before multiplying: anything above MAX_DURATION is MAX_DURATION
        if (whole == Long.MAX_VALUE || whole > MAX_NANOS / unitNanos) {
            return MAX_DURATION;
        }
        long nanos = whole * unitNanos;

        // fraction of one unit, in nanoseconds, rounded up; digits beyond nanosecond precision
        // can only add a partial nanosecond, which rounds up to one
        long fractionNanos = 0;
        long scale = unitNanos;
        boolean remainder = false;
        for (int i = 0; i < fractionDigits.length(); i++) {
            int d = fractionDigits.charAt(i) - '0';
            if (scale >= 10) {
                long next = scale / 10;
                if (scale % 10 != 0 && d != 0) {
                    remainder = true;
                }
                fractionNanos += d * next;
                scale = next;
            } else if (d != 0) {
                remainder = true;
            }
        }
        if (remainder) {
            fractionNanos++;
        }
        nanos += fractionNanos;
        if (nanos > MAX_NANOS) {
            return MAX_DURATION;
        }
        return roundUp(Duration.ofNanos(nanos), roundUpTo);
    }

    /**
     * Rounds {@code d} up to a whole multiple of {@code granularity}, saturating at
     * {@link #MAX_DURATION}; a negative {@code d} becomes zero.
     */
    public static Duration roundUp(Duration d, Duration granularity) {
        if (d.isNegative()) {
            return Duration.ZERO;
        }
        if (d.compareTo(MAX_DURATION) >= 0) {
            return MAX_DURATION;
        }
        long g = granularity.toNanos();
        long nanos = d.toNanos();
        long r = nanos % g;
        if (r != 0) {
            nanos += g - r;
        }
        return nanos > MAX_NANOS ? MAX_DURATION : Duration.ofNanos(nanos);
    }

    /** Clamps {@code d} into {@code [0, MAX_DURATION]}. */
    public static Duration clamp(Duration d) {
        if (d.isNegative()) {
            return Duration.ZERO;
        }
        return d.compareTo(MAX_DURATION) > 0 ? MAX_DURATION : d;
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
