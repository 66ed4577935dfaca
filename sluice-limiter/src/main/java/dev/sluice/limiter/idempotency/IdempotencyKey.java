package dev.sluice.limiter.idempotency;

import java.util.Objects;

/**
 * The identity of one idempotency record (SPEC §3.11): the API key that sent the request and the
 * {@code Idempotency-Key} it chose. Records of different API keys never meet, so one client cannot
 * read or block another's records by guessing its keys.
 *
 * @param apiKey the authenticated API key (the edge's limiter key); not blank
 * @param value the {@code Idempotency-Key} as the client sent it (the sf-string's content when quoted):
 *     1 to {@value #MAX_LENGTH} printable ASCII characters ({@code 0x20}–{@code 0x7E})
 */
public record IdempotencyKey(String apiKey, String value) {

    /** The longest {@code Idempotency-Key} accepted, in characters (a UUID has 36). */
    public static final int MAX_LENGTH = 255;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when {@code apiKey} is blank or {@code value} is
     *     empty, too long or not printable ASCII
     */
    public IdempotencyKey {
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(value, "value");
        if (apiKey.isBlank()) {
            throw new IllegalArgumentException("apiKey: must not be blank");
        }
        String problem = problemWith(value);
        if (problem != null) {
            throw new IllegalArgumentException("value: " + problem);
        }
    }

    /**
     * Why {@code value} cannot be an {@code Idempotency-Key}, or {@code null} when it can: the edge
     * answers 400 with this text instead of catching an exception.
     */
    public static String problemWith(String value) {
        if (value == null || value.isEmpty()) {
            return "must not be empty";
        }
        if (value.length() > MAX_LENGTH) {
            return "must be at most " + MAX_LENGTH + " characters, was " + value.length();
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7e) {
                return "must be printable ASCII";
            }
        }
        return null;
    }
}
