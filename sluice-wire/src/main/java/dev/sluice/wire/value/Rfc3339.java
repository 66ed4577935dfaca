package dev.sluice.wire.value;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import org.jspecify.annotations.Nullable;

/**
 * Reads an RFC 3339 / ISO 8601 instant with an offset, as Anthropic's
 * {@code anthropic-ratelimit-*-reset} ({@code 2024-03-26T20:00:00Z}) and Atlassian's
 * {@code X-Beta-Ratelimit-Reset} ({@code 2026-03-26T16:00Z}, no seconds) carry (SPEC §2.6, R05).
 * A value without an offset is rejected: its zone would be a guess.
 *
 * <p>Never throws. Stateless and thread-safe.
 */
public final class Rfc3339 {

    private Rfc3339() {
    }

    /**
     * Parses {@code value}.
     *
     * @return the instant, or {@code null} when {@code value} is {@code null} or not a date-time
     *     with an offset
     */
    public static @Nullable Instant parse(@Nullable String value) {
        if (value == null) {
            return null;
        }
        String s = value.strip();
        // cheap shape check first: exceptions are for the rare malformed value, not every number
        if (s.length() < 16 || s.length() > 64 || s.charAt(4) != '-' || s.charAt(7) != '-') {
            return null;
        }
        try {
            return OffsetDateTime.parse(s, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
