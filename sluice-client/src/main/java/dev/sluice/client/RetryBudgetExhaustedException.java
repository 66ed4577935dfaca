package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;

/**
 * A retry was worth making but a budget refused it (SPEC §4.2, §4.4): either the client's retries
 * over the last minute already reached their share of requests (default 10 %), or the caller's
 * Idempotency-Key has used its total attempt cap across the caller's repeated calls (default 5).
 * The {@linkplain #getCause() cause} is the error the call would otherwise have returned, when there
 * was one.
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

    public RetryBudgetExhaustedException(String message, Scope scope, Throwable cause, int status,
            RateLimitSnapshot snapshot, int attempts) {
        super(message, cause, status, snapshot, attempts);
        this.scope = scope;
    }

    public Scope scope() {
        return scope;
    }
}
