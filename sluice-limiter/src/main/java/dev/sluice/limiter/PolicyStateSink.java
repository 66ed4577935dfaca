package dev.sluice.limiter;

/**
 * Receives one decision's values as the store computes them, without a {@link Decision} or
 * {@link PolicyState} object: for a caller that writes the {@code RateLimit} fields (SPEC §2.1) at
 * once, e.g. into a reused {@code StringBuilder}. See
 * {@link dev.sluice.limiter.memory.InMemoryLimiterStore#decide(String, Plan, Costs, PolicyStateSink)}.
 * Called on the deciding thread, synchronously; it must not call back into the store.
 */
@FunctionalInterface
public interface PolicyStateSink {

    /**
     * One policy's standing after the decision, in plan order; the arguments are those of
     * {@link PolicyState}'s components ({@code r}, {@code t}, {@code used}, {@code reset_at} or
     * {@link PolicyState#NO_RESET_AT}). On a denial, the denying policy's {@code t} is the Retry-After.
     */
    void state(Policy policy, long remaining, long resetSeconds, long used, long resetAtEpochSecond);

    /**
     * After the states of a denial: the denying policy (the longest wait) and the Retry-After in whole
     * seconds, ≥ 1 (SPEC §2.3), as {@link Denied#policy()} and {@link Denied#retryAfterSeconds()}.
     * Does nothing by default.
     */
    default void denied(Policy policy, long retryAfterSeconds) {}
}
