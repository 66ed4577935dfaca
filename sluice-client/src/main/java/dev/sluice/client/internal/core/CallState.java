package dev.sluice.client.internal.core;

import dev.sluice.client.SluiceException;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.CoreCall;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/** The core's record of one logical call; mutated only under the core's lock. */
final class CallState<A> implements CoreCall<A> {

    /**
     * OPENED: being opened, under the core's lock, not yet queued or refused; RESERVED: a slot is
     * held while a shared pacer store is asked for the call's tokens, off the
     * core's lock; WAITING_FOR_BUDGET: a retry whose wait is over, waiting for room in the retry
     * budget (and, while later calls are still answered 503, for the server to recover).
     */
    enum Phase { OPENED, QUEUED, RESERVED, WAITING_TO_RETRY, WAITING_FOR_BUDGET, IN_FLIGHT, DONE }

    final long id;
    final CallSpec spec;
    final A attachment;
    final @Nullable String idempotencyKey;
    final boolean hasDeadline;
    final long deadlineNanos;
    final int maxAttempts;

    volatile int attempts;
    Phase phase = Phase.OPENED;
    long enqueuedNanos;
    long startedNanos;
    long retryAtNanos;
    int lastStatus;
    @Nullable RateLimitSnapshot lastSnapshot;
    /** The transport may send each attempt of this call twice (it did, or may have, once). */
    boolean transportMayResend;
    /** Set by the pacer gate when it refuses the call. */
    @Nullable SluiceException gateError;
    /** Waiting since (opened, or last answered), and waited in all before its attempts. */
    long idleSinceNanos;
    long waitedNanos;
    private dev.sluice.client.@Nullable CallEvent event;
    /** The tokens a reserved call asks the shared store for. */
    double reservedTake;
    /** The retry that must be granted by the retry budget when its wait is over; {@code null} for none. */
    dev.sluice.client.internal.retry.Classification.@Nullable Retryable budgetRetry;
    /** Whether that retry may wait for room in the budget (the call has a deadline), and until when. */
    boolean budgetWaits;
    long budgetUntilNanos;
    /** The budget said no to that retry at least once (its error then carries the refusal). */
    boolean budgetRefused;
    /** A shared budget is being asked for it, off the core's lock. */
    boolean askingBudget;

    CallState(long id, CallSpec spec, A attachment, @Nullable String idempotencyKey, boolean hasDeadline,
            long deadlineNanos, int maxAttempts) {
        this.id = id;
        this.spec = spec;
        this.attachment = attachment;
        this.idempotencyKey = idempotencyKey;
        this.hasDeadline = hasDeadline;
        this.deadlineNanos = deadlineNanos;
        this.maxAttempts = maxAttempts;
    }

    @Override
    public A attachment() {
        return attachment;
    }

    @Override
    public CallSpec spec() {
        return spec;
    }

    @Override
    public @Nullable String idempotencyKey() {
        return idempotencyKey;
    }

    @Override
    public int attempts() {
        return attempts;
    }

    @Override
    public long id() {
        return id;
    }

    @Override
    public boolean hasDeadline() {
        return hasDeadline;
    }

    @Override
    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** What listener events say about this call (built once). */
    dev.sluice.client.CallEvent event() {
        if (event == null) {
            event = new dev.sluice.client.CallEvent(id, spec.method(), spec.uri(), spec.host(), idempotencyKey);
        }
        return event;
    }

    @Override
    public java.time.Duration waited() {
        return java.time.Duration.ofNanos(waitedNanos);
    }

    boolean safeToRepeat() {
        return spec.idempotentMethod() || idempotencyKey != null;
    }

    @Override
    public String toString() {
        return "Call#" + id + "[" + spec.method() + " " + spec.host() + ", attempts=" + attempts + ", " + phase + "]";
    }
}
