package dev.sluice.client.transport;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What a transport needs to send one attempt of a call driven by a {@link CallDriver}.
 *
 * @param idempotencyKey the Idempotency-Key every attempt of the call carries (SPEC §4.4): the
 *     caller's, or one the core minted once for a non-idempotent method; {@code null} for an
 *     idempotent method without one
 * @param attempt this attempt's number, 1-based
 * @param remaining what is left of the call's deadline when the attempt starts (never negative);
 *     {@code null} when the call has no deadline. A transport should not let one attempt outlive it
 */
public record AttemptContext(@Nullable String idempotencyKey, int attempt, @Nullable Duration remaining) {

    public AttemptContext {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1: " + attempt);
        }
    }

    /** The remaining deadline, if the call has one. */
    public Optional<Duration> remainingDeadline() {
        return Optional.ofNullable(remaining);
    }
}
