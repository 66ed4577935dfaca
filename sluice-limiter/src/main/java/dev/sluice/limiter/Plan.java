package dev.sluice.limiter;

import dev.sluice.limiter.gcra.GcraParams;
import dev.sluice.limiter.headers.RateLimitFields;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A named list of policies bound to keys (SPEC §1 "plan"): free, pro, ... A request is admitted only
 * if every policy of the key's plan admits its cost (SPEC §3.3).
 *
 * <p>Immutable and thread-safe. Two plans are equal when their names and policies are equal. The
 * plan caches each burst policy's {@link GcraParams}, so stores do no set-up work per decision.
 */
public final class Plan {

    private final String name;
    private final List<Policy> policies;
    private final GcraParams[] gcra;
    private final boolean hasQuota;
    private final boolean[] concurrency;
    /** {@link #policies} as an array: {@link #policy(int)} is on every decision's path */
    private final Policy[] policyArray;
    private final boolean hasConcurrency;
    /** the smallest quota among policies counting requests ({@code Long.MAX_VALUE} if none) */
    private final long minRequestsQuota;
    /** the smallest quota among policies counting content bytes ({@code Long.MAX_VALUE} if none) */
    private final long minContentBytesQuota;
    private final int hash;
    /** the RateLimit-Policy field, serialised on first use (a benign race: the value is a constant) */
    private @Nullable String rateLimitPolicyField;

    private Plan(String name, @Nullable List<Policy> policies) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: a plan name must not be blank");
        }
        if (policies == null || policies.isEmpty()) {
            throw new IllegalArgumentException("policies: must not be empty (plan " + name + ")");
        }
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < policies.size(); i++) {
            Policy p = Objects.requireNonNull(policies.get(i), "policies[" + i + "]");
            if (!seen.add(p.name())) {
                throw new IllegalArgumentException(
                        "policies[" + i + "].name: duplicate \"" + p.name() + "\" (plan " + name + ")");
            }
        }
        this.name = name;
        this.policies = List.copyOf(policies);
        this.policyArray = this.policies.toArray(new Policy[0]);
        this.gcra = new GcraParams[policies.size()];
        this.concurrency = new boolean[policies.size()];
        boolean quota = false;
        boolean conc = false;
        long minRequests = Long.MAX_VALUE;
        long minBytes = Long.MAX_VALUE;
        for (int i = 0; i < policies.size(); i++) {
            Policy p = policies.get(i);
            switch (p.unit()) {
                case REQUESTS -> minRequests = Math.min(minRequests, p.quota());
                case CONTENT_BYTES -> minBytes = Math.min(minBytes, p.quota());
                case CONCURRENT_REQUESTS -> { } // charged 1, and every quota is > 0
            }
            switch (policies.get(i)) {
                case BurstPolicy b -> gcra[i] = b.gcraParams();
                case QuotaPolicy q -> quota = true;
                case ConcurrencyPolicy c -> {
                    concurrency[i] = true;
                    conc = true;
                }
            }
        }
        this.hasQuota = quota;
        this.hasConcurrency = conc;
        this.minRequestsQuota = minRequests;
        this.minContentBytesQuota = minBytes;
        this.hash = name.hashCode() * 31 + this.policies.hashCode();
    }

    /**
     * A plan of {@code policies}, in the order they are reported on the wire.
     *
     * @throws IllegalArgumentException naming the field when the name is blank, the list is empty or
     *     two policies share a name
     */
    public static Plan of(String name, List<? extends Policy> policies) {
        return new Plan(name, policies == null ? null : new ArrayList<>(policies));
    }

    /** {@link #of(String, List)} with the policies as arguments. */
    public static Plan of(String name, Policy... policies) {
        return of(name, List.of(policies));
    }

    public String name() {
        return name;
    }

    /** The policies, in wire order; unmodifiable. */
    public List<Policy> policies() {
        return policies;
    }

    /**
     * This plan's {@code RateLimit-Policy} field value (SPEC §2.1, §2.2), serialised once and then
     * reused: {@code "burst";q=20;w=2, "daily";q=10000;w=86400}.
     */
    public String rateLimitPolicyField() {
        String field = rateLimitPolicyField;
        if (field == null) {
            field = RateLimitFields.policyField(this);
            rateLimitPolicyField = field;
        }
        return field;
    }

    /** How many policies. */
    public int size() {
        return policies.size();
    }

    /** The policy at {@code index} (wire order). */
    public Policy policy(int index) {
        return policyArray[index];
    }

    /**
     * The GCRA constants of the burst policy at {@code index}.
     *
     * @throws IllegalArgumentException when that policy is not a burst policy
     */
    public GcraParams gcraParams(int index) {
        GcraParams p = gcra[index];
        if (p == null) {
            throw new IllegalArgumentException("policies[" + index + "] is not a burst policy");
        }
        return p;
    }

    /** Whether the policy at {@code index} is a {@link BurstPolicy} (a cheap test for hot paths). */
    public boolean isBurst(int index) {
        return gcra[index] != null;
    }

    /** Whether the policy at {@code index} is a {@link ConcurrencyPolicy} (a cheap test for hot paths). */
    public boolean isConcurrency(int index) {
        return concurrency[index];
    }

    /**
     * Whether any policy is a {@link ConcurrencyPolicy}: an {@link Allowed} of this plan holds slots
     * until {@link dev.sluice.limiter.spi.LimiterStore#release} gives them back.
     */
    public boolean hasConcurrencyPolicy() {
        return hasConcurrency;
    }

    /** Whether any policy is a calendar quota (a store then needs the wall clock). */
    public boolean hasQuotaPolicy() {
        return hasQuota;
    }

    /** The index of the policy named {@code policyName}, or -1. */
    public int indexOf(String policyName) {
        for (int i = 0; i < policies.size(); i++) {
            if (policies.get(i).name().equals(policyName)) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The index of the first policy whose quota {@code q} is smaller than the cost {@code costs}
     * charge it, or -1. Such a request can never be admitted (SPEC §3.10; R14a); stores answer it
     * with {@link CostExceedsBurst} before touching any state.
     */
    public int indexOfCostExceedingQuota(Costs costs) {
        // the common case in O(1): within every policy's quota (Costs.ONE always is, quotas being > 0)
        if (costs.requests() <= minRequestsQuota && costs.contentBytes() <= minContentBytesQuota) {
            return -1;
        }
        for (int i = 0; i < policyArray.length; i++) {
            Policy p = policyArray[i];
            if (costs.costFor(p) > p.quota()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * This plan for a key renewing on {@code anchorDay}: monthly quota policies move to that day;
     * everything else (and so the {@code RateLimit-Policy} line) is unchanged.
     *
     * @throws IllegalArgumentException unless {@code 1 ≤ anchorDay ≤ 31}
     */
    public Plan withAnchorDay(int anchorDay) {
        List<Policy> moved = new ArrayList<>(policies.size());
        boolean changed = false;
        for (Policy p : policies) {
            Policy m = p instanceof QuotaPolicy q ? q.withAnchorDay(anchorDay) : p;
            changed |= m != p;
            moved.add(m);
        }
        return changed ? new Plan(name, moved) : this;
    }

    @Override
    public boolean equals(Object o) {
        return this == o
                || (o instanceof Plan other && hash == other.hash && name.equals(other.name)
                        && policies.equals(other.policies));
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "Plan[" + name + ", " + policies + "]";
    }
}
