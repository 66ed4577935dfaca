package dev.sluice.edge.decision;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.keys.KeyPlans;
import dev.sluice.edge.keys.StoredKey;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.route.RouteTable;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.config.KeyBinding;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The decision-relevant part of an {@link EdgeConfig}, compiled once per (re)load: key lookup with
 * each plan's policy line serialised once (SPEC §2.2), the route table, the anonymous plan, the problem
 * factory. A reload builds a new instance and swaps it in whole, so a request sees one configuration
 * from start to end. Immutable and thread-safe.
 */
public final class EdgeRules {

    private final EdgeConfig config;
    private final Map<String, Caller.ApiKey> keys;
    private final Problems problems;

    /** Compiles {@code config}. */
    public EdgeRules(EdgeConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        Map<String, Caller.ApiKey> byKey = new HashMap<>(config.keys().size() * 2);
        KeyIds ids = config.keyIdSecret().map(KeyIds::new).orElse(KeyIds.DEFAULT);
        for (KeyBinding b : config.keys().values()) {
            byKey.put(b.key(), new Caller.ApiKey(b, ids.id(b.key()))); // ids once per load, never per request
            b.plan().rateLimitPolicyField(); // serialised now, once per plan (SPEC §2.2)
        }
        this.keys = byKey;
        this.problems = new Problems(config.problem());
    }

    public EdgeConfig config() {
        return config;
    }

    /**
     * The caller for a key from a key store, under this configuration's plans, or {@code null} when its
     * plan or an overridden policy is not in the configuration. The limiter keeps its state under the
     * key's hash, so the clear key is not kept anywhere.
     */
    public Caller.ApiKey resolve(StoredKey stored) {
        Plan plan;
        try {
            plan = KeyPlans.resolve(config.plans(), stored);
        } catch (IllegalArgumentException e) {
            return null;
        }
        plan.rateLimitPolicyField();
        return new Caller.ApiKey(new KeyBinding(stored.keyHash(), plan, stored.renewalDay()), stored.keyId());
    }

    /** The caller for a configured API key, or {@code null} for an unknown one. */
    public Caller.ApiKey key(String apiKey) {
        return keys.get(apiKey);
    }

    public RouteTable routes() {
        return config.routes();
    }

    public Problems problems() {
        return problems;
    }

    /** Whether responses to a key carry the RateLimit fields ({@link EdgeConfig#rateLimitFields()}). */
    public boolean rateLimitFields() {
        return config.rateLimitFields();
    }

    /** The soft-limit threshold, percent of a quota policy's {@code q} (SPEC §3.8). */
    public int softLimitPercent() {
        return config.softLimitPercent();
    }

    public Plan anonymousPlan() {
        return config.anonymousPlan();
    }
}
