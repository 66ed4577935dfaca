package dev.sluice.wire.dialect;

import java.util.Optional;

/**
 * One way servers describe their limits: a header family ({@code RateLimit}, {@code x-ratelimit-*},
 * {@code anthropic-ratelimit-*}), a body shape (Google {@code RESOURCE_EXHAUSTED}), or both
 * (SPEC §2.6). A {@link DialectRegistry} asks its dialects in order; the first that recognises a
 * response supplies its policies and hints, and the registry adds what every response shares
 * ({@code Retry-After}, {@code Age}, problem details, status rules).
 *
 * <p>Implementations must be stateless (or immutable) and thread-safe, and should never throw: a
 * value they cannot read is skipped. (The registry treats a dialect that throws a
 * {@link RuntimeException} as not matching, so one buggy user dialect cannot break reading.)
 *
 * <p>To add a dialect, implement this interface and register it with
 * {@link DialectRegistry#builder()}; its position decides its precedence.
 */
public interface Dialect {

    /**
     * A stable lower-case id that names this dialect in snapshots, logs and
     * {@code sluice explain} output, e.g. {@code ietf-draft-11}, {@code github}.
     */
    String id();

    /**
     * Reads {@code input} if it is in this dialect.
     *
     * @return what this dialect found, or empty when the response is not in this dialect
     */
    Optional<DialectReading> read(DialectInput input);
}
