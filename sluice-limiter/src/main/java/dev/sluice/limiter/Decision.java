package dev.sluice.limiter;

import java.util.List;

/**
 * The answer of a {@link dev.sluice.limiter.spi.LimiterStore} to one request (SPEC §3.3, §3.10):
 * <ul>
 *   <li>{@link Allowed}: every policy admitted its cost, and every policy was charged;</li>
 *   <li>{@link Denied}: at least one policy did not; <b>no</b> policy was charged;</li>
 *   <li>{@link CostExceedsBurst}: the cost exceeds a policy's {@code q}, so it can never fit; nothing
 *       was read or charged;</li>
 *   <li>{@link Unavailable}: a shared store could not decide in time and fails closed (SPEC §3.14);
 *       nothing was charged. The in-memory store never answers it.</li>
 * </ul>
 * Immutable; switch over it with a pattern-matching {@code switch}.
 */
public sealed interface Decision permits Allowed, Denied, CostExceedsBurst, Unavailable {

    /** The plan the decision was made under. */
    Plan plan();

    /**
     * Each policy's standing after the decision, in the plan's order (empty for
     * {@link CostExceedsBurst} and {@link Unavailable}, which read no state).
     */
    List<PolicyState> states();
}
