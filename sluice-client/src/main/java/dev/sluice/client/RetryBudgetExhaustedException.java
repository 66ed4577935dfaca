package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * A budget refused an attempt (SPEC §4.2, §4.4): either the client's retries over the last minute
 * already reached their share of requests (default 10 %), or the caller's Idempotency-Key has used
 * its total attempt cap across the caller's repeated calls (default 5).
 *
 * <p>Thrown as such only when a call is refused before its first attempt (a key already at its
 * cap). A retry the budget refuses after an answer ends the call with that answer's own typed error
 * ({@link OverloadedException} for a 503, {@link RateLimitedException} for a 429, ...), and this
 * exception is its {@linkplain Throwable#getCause() cause} (for a {@link TransportException}, whose
 * cause is the I/O failure, it is {@linkplain Throwable#getSuppressed() suppressed}): the caller learns
 * what the server said, and why the SDK stopped.
 */
public final class RetryBudgetExhaustedException extends SluiceException {

    /** Which budget refused. */
    public enum Scope {
        /** Retries in the sliding minute reached the client's budget (SPEC §4.2). */
        CLIENT_RETRY_BUDGET,
        /** The Idempotency-Key reached its total attempt cap (SPEC §4.4). */
        IDEMPOTENCY_KEY_ATTEMPTS
    }

    private final Scope scope;

    public RetryBudgetExhaustedException(String message, Scope scope, @Nullable Throwable cause, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts) {
        super(message, cause, status, snapshot, attempts);
        this.scope = scope;
    }

    public Scope scope() {
        return scope;
    }
}
