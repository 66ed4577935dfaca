package dev.sluice.client;

import java.time.Duration;

/**
 * The admission queue refused or dropped the call before it started (SPEC §5.2, §5.3): its deadline
 * had passed, the queue was full, or a more urgent call evicted it. Counted apart from errors
 * (§5.5). Carries the reason and a retry hint (how long the queue expects to stay unable to take
 * it; {@link Duration#ZERO} for deadline reasons, where retrying cannot help the same caller).
 */
public sealed class ShedException extends SluiceException permits DeadlineExceededException {

    private final ShedReason reason;
    private final Duration retryHint;

    public ShedException(String message, ShedReason reason, Duration retryHint, int attempts) {
        super(message, null, 0, null, attempts);
        this.reason = java.util.Objects.requireNonNull(reason, "reason");
        this.retryHint = retryHint == null ? Duration.ZERO : retryHint;
    }

    public ShedReason reason() {
        return reason;
    }

    /** When the caller might try again; never negative. */
    public Duration retryHint() {
        return retryHint;
    }
}
