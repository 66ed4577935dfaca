package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A burst limit said no ({@code 429 rate_limited}, SPEC §3.4) and Sluice did not retry: the
 * attempts were used up, or the server's hint was longer than the caller's deadline or the
 * configured maximum wait (SPEC §2.4; regression case R03). The hint is carried, never undercut.
 */
public final class RateLimitedException extends SluiceException {

    private final @Nullable Duration retryAfter;

    public RateLimitedException(String message, @Nullable Duration retryAfter, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts) {
        this(message, retryAfter, status, snapshot, attempts, null);
    }

    /**
     * @param cause why Sluice stopped retrying, when a budget refused the retry (a
     *     {@link RetryBudgetExhaustedException}); {@code null} otherwise
     */
    public RateLimitedException(String message, @Nullable Duration retryAfter, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts, @Nullable Throwable cause) {
        super(message, cause, status, snapshot, attempts);
        this.retryAfter = retryAfter;
    }

    /** How long the server (or the pacer, for a local refusal) asked to wait; empty when unknown. */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
