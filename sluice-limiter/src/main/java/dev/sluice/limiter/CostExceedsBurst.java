package dev.sluice.limiter;

import java.util.List;
import java.util.Objects;

/**
 * The request costs more than a policy's quota {@code q}, so no wait can ever admit it (SPEC §3.10:
 * 400 {@code cost_exceeds_burst}; R14a). Decided before any state is read or charged; carries no
 * Retry-After because waiting cannot help.
 *
 * <p>SPEC §3.10 names burst policies; a cost above a quota policy's whole-window {@code q} is just as
 * hopeless, so it is answered the same way (the {@link #policy()} says which).
 *
 * @param plan the plan
 * @param policy the first policy (plan order) whose {@code q} is below the cost
 * @param cost the cost the request would charge that policy
 */
public record CostExceedsBurst(Plan plan, Policy policy, long cost) implements Decision {

    public CostExceedsBurst {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(policy, "policy");
    }

    /** Always empty: no state was read. */
    @Override
    public List<PolicyState> states() {
        return List.of();
    }
}
