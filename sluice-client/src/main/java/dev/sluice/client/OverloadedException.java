package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The server is short of capacity for everyone (503, Anthropic's 529; SPEC §1 "overloaded") and
 * Sluice did not retry further. Never a quota matter: an overload never produces
 * {@link QuotaExceededException} and never pauses the pacer (regression case R09).
 */
public final class OverloadedException extends SluiceException {

    private final @Nullable Duration retryAfter;

    public OverloadedException(String message, @Nullable Duration retryAfter, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts) {
        this(message, retryAfter, status, snapshot, attempts, null);
    }

    /**
     * @param cause why Sluice stopped retrying, when a budget refused the retry (a
     *     {@link RetryBudgetExhaustedException}); {@code null} otherwise
     */
    public OverloadedException(String message, @Nullable Duration retryAfter, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts, @Nullable Throwable cause) {
        super(message, cause, status, snapshot, attempts);
        this.retryAfter = retryAfter;
    }

    /** The server's Retry-After, when it sent one. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
