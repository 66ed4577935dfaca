package dev.sluice.wire.value;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Reads the Go {@code time.Duration} string form that OpenAI-style {@code x-ratelimit-reset-*}
 * fields (and some {@code Retry-After} values) carry: {@code 6m0s}, {@code 20ms},
 * {@code 2m59.56s}, {@code 1h2m3.5s}, {@code 7.66s} (SPEC §2.6, regression case R05).
 *
 * <p>Grammar: one or more {@code number unit} pairs, where {@code number} is {@code 1*DIGIT
 * ["." *DIGIT]} or {@code "." 1*DIGIT} and {@code unit} is one of {@code h m s ms us µs μs ns};
 * or the single value {@code 0}. The whole value must match: no sign (a negative wait is
 * malformed, R01/R02), no prefix reading ({@code 2m59.56s} is 179.56 s, never 2). Huge values
 * saturate at {@link WireNumbers#MAX_DURATION}; fractions below a nanosecond round up.
 *
 * <p>Never throws. Stateless and thread-safe.
 */
public final class GoDuration {

    private static final long NANOS_PER_HOUR = 3_600_000_000_000L;
    private static final long MAX_NANOS = WireNumbers.MAX_DURATION.toNanos();

    private GoDuration() {
    }

    /**
     * Parses a Go duration string.
     *
     * @param value the value (surrounding whitespace tolerated), may be {@code null}
     * @return the duration, never negative, or {@code null} when {@code value} does not match
     */
    public static @Nullable Duration parse(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String s = value.strip();
        int n = s.length();
        if (n == 0 || n > 256) {
            return null;
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        long total = 0;
        int i = 0;
        while (i < n) {
            int numberStart = i;
            while (i < n && WireNumbers.isDigit(s.charAt(i))) {
                i++;
            }
            int integerEnd = i;
            int fractionStart = i;
            int fractionEnd = i;
            if (i < n && s.charAt(i) == '.') {
                fractionStart = ++i;
                while (i < n && WireNumbers.isDigit(s.charAt(i))) {
                    i++;
                }
                fractionEnd = i;
            }
            if (integerEnd == numberStart && fractionEnd == fractionStart) {
                return null; // no digits at all
            }
            int unitStart = i;
            while (i < n && !WireNumbers.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            long unitNanos = unitNanos(s.substring(unitStart, i));
            if (unitNanos < 0) {
                return null;
            }
            String number = (integerEnd == numberStart ? "0" : s.substring(numberStart, integerEnd))
                    + (fractionEnd > fractionStart ? "." + s.substring(fractionStart, fractionEnd) : "");
            Duration part = WireNumbers.parseDecimal(number, Duration.ofNanos(unitNanos), Duration.ofNanos(1));
            if (part == null) {
                return null;
            }
            total = Math.min(MAX_NANOS, total + part.toNanos());
        }
        return Duration.ofNanos(total);
    }

    private static long unitNanos(String unit) {
        return switch (unit) {
            case "ns" -> 1L;
            case "us", "\u00b5s", "\u03bcs" -> 1_000L;
            case "ms" -> 1_000_000L;
            case "s" -> 1_000_000_000L;
            case "m" -> 60_000_000_000L;
            case "h" -> NANOS_PER_HOUR;
            default -> -1L;
        };
    }
}
