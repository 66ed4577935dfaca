package dev.sluice.limiter;

import dev.sluice.wire.snapshot.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * At least one policy refused its cost, and no policy was charged (SPEC §3.3).
 *
 * <p>When several policies refuse, {@link #policy()} is the one with the <b>longest</b> wait: the
 * client has to wait for all of them, and after that wait every one admits (each policy only ever
 * gets more permissive as time passes). All refusing policies are listed in {@link #violated()}
 * (the draft-11 {@code violated-policies} member, SPEC §3.4).
 *
 * @param plan the plan
 * @param policy the denying policy (longest wait): the problem body's {@code limit}
 * @param exactWait the exact time until this request would be admitted by every policy, &gt; 0
 *     (microsecond precision for burst policies); rounded up for the wire by
 *     {@link #retryAfterSeconds()}
 * @param violated every policy that refused, in plan order (includes {@code policy})
 * @param states each policy's standing, unchanged by this request, in plan order; the denying
 *     policy's {@code t} is set to {@link #retryAfterSeconds()} (SPEC §2.3), whatever is passed
 */
public record Denied(Plan plan, Policy policy, Duration exactWait, List<Policy> violated, List<PolicyState> states)
        implements Decision {

    public Denied {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(policy, "policy");
        if (exactWait == null || exactWait.isNegative() || exactWait.isZero()) {
            throw new IllegalArgumentException("exactWait: must be > 0, was " + exactWait);
        }
        violated = List.copyOf(violated);
        long retryAfter = ceilSeconds(exactWait);
        List<PolicyState> fixed = new ArrayList<>(states.size());
        for (PolicyState s : states) {
            fixed.add(s.policy().equals(policy) ? s.withResetSeconds(retryAfter) : s);
        }
        states = List.copyOf(fixed);
    }

    /**
     * {@code Retry-After} in delay-seconds: {@link #exactWait()} rounded up, so honouring it succeeds
     * (SPEC §2.3); always ≥ 1 (R02). Equals the denying policy's {@code t} and the problem body's
     * {@code retry_after_s} (SPEC §3.4).
     */
    public long retryAfterSeconds() {
        return ceilSeconds(exactWait);
    }

    /**
     * {@link Outcome#RATE_LIMITED} when the denying policy is a burst policy (clears in seconds,
     * retryable), {@link Outcome#QUOTA_EXHAUSTED} when it is a quota policy (SPEC §3.4).
     */
    public Outcome outcome() {
        return policy.denialOutcome();
    }

    private static long ceilSeconds(Duration d) {
        long s = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
        return Math.max(1, s);
    }
}
