package dev.sluice.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one duration grammar of every Sluice file and command line: a number and a unit, {@code ms},
 * {@code s}, {@code m}, {@code h} or {@code d} ({@code 250ms}, {@code 1.5s}, {@code 5m}, {@code 72h},
 * {@code 3d}); decimals are exact to the nanosecond. ISO-8601 ({@code PT3S}) is read too. Stateless.
 */
public final class Durations {

    /** What a duration looks like, for messages: {@code "a duration like 250ms, 1.5s, 5m, 2h or 3d"}. */
    public static final String EXPECTED = "a duration like 250ms, 1.5s, 5m, 2h or 3d";

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,12}(?:\\.\\d{1,9})?)\\s*(ms|s|m|h|d)");
    /** Longer than any setting needs, and short enough that nanoseconds fit in a {@code long}. */
    private static final Duration LONGEST = Duration.ofDays(10_000);

    private Durations() {
    }

    /**
     * Reads {@code text} (surrounding blanks ignored, unit case-insensitive).
     *
     * @throws IllegalArgumentException if it is neither form, is not a whole number of nanoseconds,
     *     or is longer than 10,000 days; the message names the accepted forms and a hint for a near miss
     */
    public static Duration parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = SIMPLE.matcher(t);
        Duration d;
        if (m.matches()) {
            BigDecimal seconds = new BigDecimal(m.group(1)).multiply(switch (m.group(2)) {
                case "ms" -> new BigDecimal("0.001");
                case "s" -> BigDecimal.ONE;
                case "m" -> BigDecimal.valueOf(60);
                case "h" -> BigDecimal.valueOf(3_600);
                default -> BigDecimal.valueOf(86_400);
            });
            if (seconds.compareTo(BigDecimal.valueOf(LONGEST.getSeconds())) > 0) {
                throw new IllegalArgumentException("must be at most 10000d, was '" + text + "'");
            }
            BigDecimal nanos = seconds.movePointRight(9);
            if (nanos.stripTrailingZeros().scale() > 0) {
                throw new IllegalArgumentException("must be a whole number of nanoseconds, was '" + text + "'");
            }
            d = Duration.ofNanos(nanos.longValueExact());
        } else {
            try {
                d = Duration.parse(text.strip());
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("not " + EXPECTED + ": '" + text + "'" + hint(text));
            }
            if (d.isNegative() || d.compareTo(LONGEST) > 0) {
                throw new IllegalArgumentException("must be between 0 and 10000d, was '" + text + "'");
            }
        }
        return d;
    }

    /**
     * A hint for a near miss, with a leading space, or empty: a bare number ({@code 5}: "add a unit: 5s
     * or 5ms"), a word unit ({@code 5 sec}, {@code 2 minutes}).
     */
    static String hint(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.matches("\\d{1,12}(\\.\\d+)?")) {
            return " (add a unit: " + t + "s or " + t + "ms)";
        }
        Matcher word = Pattern.compile("(\\d{1,12}(?:\\.\\d+)?)\\s*(msec|millis|milliseconds?|secs?|seconds?|mins?|minutes?|hours?|hrs?|days?)")
                .matcher(t);
        if (word.matches()) {
            String unit = word.group(2);
            String symbol = unit.startsWith("mil") || unit.equals("msec") ? "ms" : unit.substring(0, 1);
            return " (units are ms, s, m, h, d: write " + word.group(1) + symbol + ")";
        }
        return "";
    }

    /**
     * The shortest exact form {@link #parse} reads back: {@code 250ms}, {@code 3s}, {@code 5m},
     * {@code 72h}, {@code 1500us} is printed as {@code 1.5ms}, {@code 0s} for zero. Hours are not folded
     * into days ({@code 72h} stays {@code 72h}: that is how retention and ages are usually read).
     *
     * @throws IllegalArgumentException if {@code d} is negative
     */
    public static String format(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("negative duration: " + d);
        }
        if (d.toNanosPart() % 1_000_000 != 0 || d.getSeconds() > LONGEST.getSeconds()) {
            BigDecimal ms = new BigDecimal(d.getSeconds()).movePointRight(3)
                    .add(BigDecimal.valueOf(d.getNano()).movePointLeft(6));
            return ms.stripTrailingZeros().toPlainString() + "ms";
        }
        long ms = d.toMillis();
        if (ms % 1000 != 0) {
            return ms + "ms";
        }
        long s = ms / 1000;
        if (s != 0 && s % 3600 == 0) {
            return s / 3600 + "h";
        }
        if (s != 0 && s % 60 == 0) {
            return s / 60 + "m";
        }
        return s + "s";
    }
}
