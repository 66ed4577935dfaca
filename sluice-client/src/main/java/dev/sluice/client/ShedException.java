package dev.sluice.client;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The admission queue refused or dropped the call before it started (SPEC §5.2, §5.3): its deadline
 * had passed, the queue was full, or a more urgent call evicted it. Counted apart from errors
 * (§5.5). Carries the reason and, like {@link RateLimitedException#retryAfter()} and
 * {@link OverloadedException#retryAfter()}, an optional time after which the caller may try again
 * (how long the queue expects to stay unable to take it; empty for deadline reasons, where retrying
 * cannot help the same caller).
 */
public sealed class ShedException extends SluiceException permits DeadlineExceededException {

    private final ShedReason reason;
    private final @Nullable Duration retryAfter;

    /**
     * @param retryAfter when the caller may try again; {@code null} for none
     * @throws IllegalArgumentException if {@code retryAfter} is negative
     */
    public ShedException(String message, ShedReason reason, @Nullable Duration retryAfter, int attempts) {
        super(message, null, 0, null, attempts);
        this.reason = java.util.Objects.requireNonNull(reason, "reason");
        if (retryAfter != null && retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative: " + retryAfter);
        }
        this.retryAfter = retryAfter;
    }

    public ShedReason reason() {
        return reason;
    }

    /** When the caller may try again, never negative; empty when retrying cannot help (a deadline). */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
