package dev.sluice.redis.limiter;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The local limiter of {@link FailureMode#FAIL_OPEN_DEGRADED}: an {@link InMemoryLimiterStore} deciding
 * each plan <em>degraded</em> to this replica's share, every policy's {@code q} replaced by
 * {@code ceil(q / N)} (R17: never silently N × the limit; the degraded plan is the decision's
 * {@link Decision#plan()}, so the edge's {@code RateLimit-Policy} states the share). A burst policy
 * keeps its window, so its rate is divided too. Thread-safe.
 */
final class LocalFallback {

    private final InMemoryLimiterStore store;
    private final int replicas;
    private final Duration retryAfter;
    /** Original plan → its degraded form; empty when a policy has no valid degraded form. */
    private final ConcurrentHashMap<Plan, Optional<Plan>> degraded = new ConcurrentHashMap<>();

    LocalFallback(TimeSource time, int replicas, Duration retryAfter) {
        this.store = new InMemoryLimiterStore(time);
        this.replicas = replicas;
        this.retryAfter = retryAfter;
    }

    /**
     * The decision of the local share. A cost that fits the full policy but not the share gets
     * {@link Unavailable} (a 503 to retry later), not a 400 that would tell the client to split a request
     * that is fine once Redis is back.
     */
    Decision decide(String key, Plan plan, Costs costs, String reason) {
        Optional<Plan> local = degrade(plan);
        if (local.isEmpty() || local.get().indexOfCostExceedingQuota(costs) >= 0) {
            return new Unavailable(plan, retryAfter, reason + "; the request does not fit the local share q/" + replicas);
        }
        return store.decide(key, local.get(), costs);
    }

    /** The local share's standing, charging nothing (fail-open usage reads). */
    List<PolicyState> usage(String key, Plan plan) {
        return store.usage(key, degrade(plan).orElse(plan));
    }

    void refund(String key, Allowed charge) {
        store.refund(key, charge);
    }

    /** Gives back the local share's concurrency slots {@code charge} (a degraded plan's admission) holds. */
    void release(String key, Allowed charge) {
        store.release(key, charge);
    }

    /** Whether {@code plan} is a degraded plan this fallback made (identity, not equality). */
    boolean isDegraded(Plan plan) {
        for (Optional<Plan> p : degraded.values()) {
            if (p.isPresent() && p.get() == plan) {
                return true;
            }
        }
        return false;
    }

    Optional<Plan> degrade(Plan plan) {
        Optional<Plan> d = degraded.get(plan);
        if (d == null) {
            if (degraded.size() > 4_096) {
                degraded.clear(); // plans come from configuration; this only guards against a caller minting plans
            }
            d = degraded.computeIfAbsent(plan, this::share);
        }
        return d;
    }

    private Optional<Plan> share(Plan plan) {
        List<Policy> policies = new ArrayList<>(plan.size());
        try {
            for (Policy p : plan.policies()) {
                long q = -Math.floorDiv(-p.quota(), replicas); // ceil(q / N), >= 1
                policies.add(switch (p) {
                    case BurstPolicy b -> new BurstPolicy(b.name(), q, b.windowSeconds(), b.unit(), b.partitionKey());
                    case QuotaPolicy qp -> new QuotaPolicy(qp.name(), q, qp.window(), qp.unit(), qp.partitionKey());
                    case ConcurrencyPolicy c -> new ConcurrencyPolicy(c.name(), q, c.partitionKey());
                });
            }
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // a share too fine for GCRA's exact ticks: fail closed for this plan
        }
        return Optional.of(Plan.of(plan.name(), policies));
    }
}
