package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The server saw this Idempotency-Key before with a different body (409 {@code idempotency_conflict}, SPEC §3.4, §3.11). A client bug: terminal, never retried.
 */
public final class IdempotencyConflictException extends SluiceException {

    public IdempotencyConflictException(String message, int status, @Nullable RateLimitSnapshot snapshot,
            int attempts) {
        this(message, status, snapshot, attempts, null);
    }

    /**
     * @param cause why Sluice stopped retrying, when a budget refused the retry (a
     *     {@link RetryBudgetExhaustedException}); {@code null} otherwise
     */
    public IdempotencyConflictException(String message, int status, @Nullable RateLimitSnapshot snapshot,
            int attempts, @Nullable Throwable cause) {
        super(message, cause, status, snapshot, attempts);
    }
}
