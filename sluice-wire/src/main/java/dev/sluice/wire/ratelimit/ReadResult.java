package dev.sluice.wire.ratelimit;

import java.util.List;

/**
 * What a tolerant read of a {@code RateLimit-Policy} or {@code RateLimit} field found: the members
 * it could use, and why it left anything out.
 *
 * @param values the usable members in field order; empty when the field is absent or unusable
 * @param problems one human-readable reason per skipped member, ignored parameter or unparseable
 *     field (with the offset where parsing stopped); empty when everything was understood
 * @param <T> {@link QuotaPolicy} or {@link ServiceLimit}
 */
public record ReadResult<T>(List<T> values, List<String> problems) {

    public ReadResult {
        values = List.copyOf(values);
        problems = List.copyOf(problems);
    }

    /** Nothing found and nothing wrong: the field was absent or empty. */
    public static <T> ReadResult<T> empty() {
        return new ReadResult<>(List.of(), List.of());
    }

    /** Whether every member and parameter that matters was understood. */
    public boolean isClean() {
        return problems.isEmpty();
    }
}
