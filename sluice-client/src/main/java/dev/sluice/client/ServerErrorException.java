package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * A 5xx other than an overload (500, 502, 504, ...). The request may have been processed, so Sluice
 * retries it only when the call is safe to repeat (idempotent method or Idempotency-Key), like a
 * timeout; this is what the caller gets when it was not, or when the attempts ran out.
 */
public final class ServerErrorException extends SluiceException {

    public ServerErrorException(String message, int status, @Nullable RateLimitSnapshot snapshot, int attempts) {
        this(message, status, snapshot, attempts, null);
    }

    /**
     * @param cause why Sluice stopped retrying, when a budget refused the retry (a
     *     {@link RetryBudgetExhaustedException}); {@code null} otherwise
     */
    public ServerErrorException(String message, int status, @Nullable RateLimitSnapshot snapshot, int attempts,
            @Nullable Throwable cause) {
        super(message, cause, status, snapshot, attempts);
    }
}
