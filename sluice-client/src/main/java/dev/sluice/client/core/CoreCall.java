package dev.sluice.client.core;

import org.jspecify.annotations.Nullable;

/**
 * One logical call inside a {@link ClientCore}: the handle a driver keeps between
 * {@link ClientCore#open}, {@link ClientCore#poll} and {@link ClientCore#onAnswer}.
 *
 * @param <A> the driver's own per-call data
 */
public interface CoreCall<A> {

    /** The driver's data given at open. */
    A attachment();

    CallSpec spec();

    /**
     * The Idempotency-Key every attempt of this call carries: the caller's, or one minted once at
     * open (SPEC §4.4; R07b); {@code null} for an idempotent method without a caller key.
     */
    @Nullable String idempotencyKey();

    /** Attempts started so far; during an attempt, its number (1-based). */
    int attempts();

    /** Order of opening; also the FIFO order within a priority level. */
    long id();

    /** Whether the call has a deadline. */
    boolean hasDeadline();

    /**
     * The call's absolute deadline on the core's monotonic clock, fixed when it was opened and
     * shared by every retry (R20); meaningful only when {@link #hasDeadline()}.
     */
    long deadlineNanos();

    /** Time the call has waited so far: retry waits and time in the admission queue. */
    default java.time.Duration waited() {
        return java.time.Duration.ZERO;
    }
}
