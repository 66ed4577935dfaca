package dev.sluice.delivery;

import java.util.Locale;

/** Why an event was dead-lettered (SPEC §6.5, §6.6). */
public enum DeadLetterReason {
    /** The event's maximum age for its type ran out (§6.5). */
    EXPIRED,
    /**
     * The destination's Retry-After (accepted: at most {@code max-retry-after}) ends after the
     * event's maximum age, so it could not be honoured in time; retrying earlier would undercut it
     * (SPEC §6.3, §6.5, R03).
     */
    RETRY_AFTER_BEYOND_MAX_AGE,
    /** The destination answered with a terminal status (a 4xx other than 408/429/410, a 3xx, a 501, ...). */
    TERMINAL_RESPONSE,
    /** The destination answered 410 Gone; it was disabled. */
    DESTINATION_GONE,
    /** The destination had been disabled (an earlier 410) when the event's turn came. */
    DESTINATION_DISABLED,
    /** A person resolved a review item as dead. */
    REVIEW_ABANDONED;

    /** The value stored and printed: {@code expired}, {@code terminal_response}, ... */
    public String dbValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException if {@code value} names no reason
     */
    public static DeadLetterReason fromDb(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
