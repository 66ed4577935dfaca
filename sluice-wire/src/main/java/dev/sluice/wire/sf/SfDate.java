package dev.sluice.wire.sf;

import java.time.Instant;

/**
 * A Date (RFC 9651 §3.3.7): whole seconds since the Unix epoch, in the same range as an
 * {@link SfInteger}.
 *
 * @param epochSeconds seconds since 1970-01-01T00:00:00Z, negative before it
 */
public record SfDate(long epochSeconds) implements BareItem {

    /**
     * @throws IllegalArgumentException if {@code epochSeconds} has more than 15 digits
     */
    public SfDate {
        if (epochSeconds > SfInteger.MAX_VALUE || epochSeconds < SfInteger.MIN_VALUE) {
            throw new IllegalArgumentException("Date out of range (15 digits at most, RFC 9651 §3.3.7): " + epochSeconds);
        }
    }

    /** The date of an instant, truncated to whole seconds (towards the past). */
    public static SfDate of(Instant instant) {
        return new SfDate(instant.getEpochSecond());
    }

    /** This date as an instant. */
    public Instant toInstant() {
        return Instant.ofEpochSecond(epochSeconds);
    }
}
