package dev.sluice.delivery.retry;

import dev.sluice.delivery.DeadLetterReason;
import java.time.Duration;
import java.time.Instant;

/** What SPEC §6.3 makes of one attempt's outcome. */
public sealed interface RetryDecision {

    /** A 2xx: delivered. */
    record Deliver() implements RetryDecision {
    }

    /**
     * Try again with the same key.
     *
     * @param delay from the outcome to the next attempt (Retry-After or backoff, clamped, plus jitter)
     * @param eligibleAt {@code now + delay}
     */
    record RetryAt(Duration delay, Instant eligibleAt) implements RetryDecision {
    }

    /** Give up: dead-letter with {@code reason}. */
    record DeadLetter(DeadLetterReason reason) implements RetryDecision {
    }

    /** The outcome is unknown and the destination does not deduplicate: ask a person. */
    record Review() implements RetryDecision {
    }
}
