package dev.sluice.limiter;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The store could not decide: a shared store (Redis, SPEC §3.14) did not answer within its bounded
 * time and is configured to fail closed. Nothing was charged. The edge answers 503 {@code overloaded}
 * with {@code Retry-After} (SPEC §3.4: retryable with backoff, never charged to a quota). The
 * in-memory store never returns it.
 *
 * @param plan the plan the request was to be decided under
 * @param retryAfter how long the client should wait before trying again, &gt; 0; rounded up to whole
 *     seconds by {@link #retryAfterSeconds()}
 * @param reason a short human-readable cause for logs (e.g. {@code "redis: timeout after 50 ms"}), not
 *     for the response body
 */
public record Unavailable(Plan plan, Duration retryAfter, String reason) implements Decision {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if {@code retryAfter} is not positive
     */
    public Unavailable {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(reason, "reason");
        if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            throw new IllegalArgumentException("retryAfter: must be > 0, was " + retryAfter);
        }
    }

    /** {@code Retry-After} in delay-seconds: {@link #retryAfter()} rounded up, ≥ 1 (SPEC §2.3). */
    public long retryAfterSeconds() {
        long s = retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
        return Math.max(1, s);
    }

    /** Always empty: no state was read. */
    @Override
    public List<PolicyState> states() {
        return List.of();
    }
}
