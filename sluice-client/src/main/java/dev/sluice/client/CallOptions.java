package dev.sluice.client;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Per-call settings of {@link SluiceHttpClient}. Immutable; start from {@link #defaults()}.
 *
 * @param deadline the total time the call may take from when it is sent — queue waits, pacing and
 *     every retry included — or {@code null} for the client's default (none unless set). One
 *     absolute deadline is fixed when the call is admitted and shared by its retries (R20)
 * @param priority admission level: {@link Priority#INTERACTIVE} (default) or
 *     {@link Priority#BACKGROUND}
 * @param idempotencyKey the caller's Idempotency-Key, or {@code null} to use the request's own
 *     header or let Sluice mint one for a non-idempotent method (SPEC §4.4)
 * @param cost pacer tokens this call takes (default 1; a batch route may cost more)
 * @param retries false for exactly one attempt (use it when your code is itself the retrying
 *     layer, e.g. a durable delivery worker; SPEC §4.7)
 */
public record CallOptions(@Nullable Duration deadline, Priority priority, @Nullable String idempotencyKey,
        int cost, boolean retries) {

    private static final CallOptions DEFAULTS = new CallOptions(null, Priority.INTERACTIVE, null, 1, true);

    public CallOptions {
        if (deadline != null && deadline.isNegative()) {
            throw new IllegalArgumentException("deadline must not be negative: " + deadline);
        }
        java.util.Objects.requireNonNull(priority, "priority");
        if (cost < 1) {
            throw new IllegalArgumentException("cost must be >= 1: " + cost);
        }
    }

    /** No deadline of its own, interactive, no caller key, cost 1, retries on. */
    public static CallOptions defaults() {
        return DEFAULTS;
    }

    public CallOptions withDeadline(@Nullable Duration d) {
        return new CallOptions(d, priority, idempotencyKey, cost, retries);
    }

    public CallOptions withPriority(Priority p) {
        return new CallOptions(deadline, p, idempotencyKey, cost, retries);
    }

    /** Interactive work that someone waits for. */
    public CallOptions interactive() {
        return withPriority(Priority.INTERACTIVE);
    }

    /** Background work: shed and evicted first. */
    public CallOptions background() {
        return withPriority(Priority.BACKGROUND);
    }

    public CallOptions withIdempotencyKey(@Nullable String key) {
        return new CallOptions(deadline, priority, key, cost, retries);
    }

    public CallOptions withCost(int c) {
        return new CallOptions(deadline, priority, idempotencyKey, c, retries);
    }

    /** Exactly one attempt. */
    public CallOptions withoutRetries() {
        return new CallOptions(deadline, priority, idempotencyKey, cost, false);
    }
}
