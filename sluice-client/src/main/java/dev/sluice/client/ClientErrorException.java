package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * Any other 4xx answer (SPEC §4.2): terminal, never retried.
 */
public final class ClientErrorException extends SluiceException {

    public ClientErrorException(String message, int status, @Nullable RateLimitSnapshot snapshot, int attempts) {
        this(message, status, snapshot, attempts, null);
    }

    /**
     * @param cause why Sluice stopped retrying, when a budget refused the retry (a
     *     {@link RetryBudgetExhaustedException}); {@code null} otherwise
     */
    public ClientErrorException(String message, int status, @Nullable RateLimitSnapshot snapshot, int attempts,
            @Nullable Throwable cause) {
        super(message, cause, status, snapshot, attempts);
    }
}
