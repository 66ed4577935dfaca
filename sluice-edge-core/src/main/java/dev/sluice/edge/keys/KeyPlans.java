package dev.sluice.edge.keys;

import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.QuotaPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Resolves a {@link StoredKey} against the configuration's plans: its plan, moved to its renewal day,
 * with its own {@code q} for the policies it overrides (the same rule as the file's
 * {@code key-overrides}). Stateless.
 */
public final class KeyPlans {

    private KeyPlans() {
    }

    /**
     * The plan {@code key} is decided under.
     *
     * @throws IllegalArgumentException when its plan is not among {@code plans} (a message naming it)
     */
    public static Plan resolve(Map<String, Plan> plans, StoredKey key) {
        Plan plan = plans.get(key.plan());
        if (plan == null) {
            throw new IllegalArgumentException("plan \"" + key.plan() + "\" is not in the configuration (plans: "
                    + String.join(", ", plans.keySet()) + ")");
        }
        return apply(plan, key.renewalDay(), key.quotaOverrides());
    }

    /**
     * {@code plan} with {@code overrides} (policy name → {@code q}) and moved to {@code renewalDay} (0: kept).
     * An override of a policy the plan does not have is left out (a key moved to a plan without it).
     */
    public static Plan apply(Plan plan, int renewalDay, Map<String, Long> overrides) {
        Plan p = renewalDay == 0 ? plan : plan.withAnchorDay(renewalDay);
        if (overrides.isEmpty()) {
            return p;
        }
        List<Policy> changed = new ArrayList<>(p.policies());
        for (Map.Entry<String, Long> o : overrides.entrySet()) {
            int index = p.indexOf(o.getKey());
            if (index < 0) {
                continue; // an override of a policy the key's (new) plan does not have: nothing to override
            }
            long q = o.getValue();
            changed.set(index, switch (changed.get(index)) {
                case BurstPolicy b -> new BurstPolicy(b.name(), q, b.windowSeconds(), b.unit(), b.partitionKey());
                case QuotaPolicy qp -> new QuotaPolicy(qp.name(), q, qp.window(), qp.unit(), qp.partitionKey());
                case ConcurrencyPolicy c -> new ConcurrencyPolicy(c.name(), q, c.partitionKey());
            });
        }
        return Plan.of(p.name(), changed);
    }
}
