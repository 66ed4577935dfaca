package dev.sluice.delivery.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Durations as people write them in config: {@code 250ms}, {@code 3s}, {@code 5m}, {@code 72h}, {@code 3d}, or ISO-8601 {@code PT3S}. */
public final class Durations {

    private static final Pattern SIMPLE = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    private Durations() {
    }

    /**
     * @throws IllegalArgumentException if {@code text} is neither form
     */
    public static Duration parse(String text) {
        Matcher m = SIMPLE.matcher(text.strip());
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text.strip());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration (use 250ms, 3s, 5m, 72h, 3d or PT3S): '" + text + "'");
        }
    }

    /**
     * The shortest exact form {@link #parse} reads back: {@code 250ms}, {@code 3s}, {@code 5m},
     * {@code 72h} ({@code 3d} is printed as {@code 72h}), {@code 0s} for zero.
     *
     * @throws IllegalArgumentException if {@code d} is negative
     */
    public static String format(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("negative duration: " + d);
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
