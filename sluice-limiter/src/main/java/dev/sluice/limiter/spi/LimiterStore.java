package dev.sluice.limiter.spi;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where limiter state lives: the in-memory store of one process
 * ({@link dev.sluice.limiter.memory.InMemoryLimiterStore}) or a shared store such as Redis
 * (SPEC §3.14).
 *
 * <p>The granularity is one call per request covering <b>every</b> policy of the key's plan, so a
 * shared store can make it one atomic server-side round trip: {@link #decide} checks all policies
 * and charges all or none (SPEC §3.3). The store owns its clocks: the in-memory store reads a
 * {@link dev.sluice.time.TimeSource} (monotonic nanos for burst policies, the UTC wall clock for
 * calendar windows); a Redis store reads the server's {@code TIME}, so N replicas share one clock.
 * The arithmetic is integer microseconds (scaled to exact ticks, see
 * {@link dev.sluice.limiter.gcra.GcraParams}) and is available as pure functions in
 * {@link dev.sluice.limiter.gcra.Gcra} and {@link dev.sluice.limiter.quota.QuotaCounter} for a
 * server-side script to mirror.
 *
 * <p>Contract (tested for every store by the abstract {@code LimiterStoreContract} in this module's
 * test jar):
 * <ul>
 *   <li>a cost above some policy's {@code q} gives {@link dev.sluice.limiter.CostExceedsBurst}
 *       without reading or changing state (SPEC §3.10; R14a);</li>
 *   <li>otherwise {@link dev.sluice.limiter.Allowed} charges every policy, and
 *       {@link dev.sluice.limiter.Denied} charges none;</li>
 *   <li>{@code r} and {@code t} follow SPEC §1 ({@code t} rounded up); a denial's Retry-After is
 *       ≥ 1 s and equals the denying policy's {@code t} (SPEC §2.3; R02);</li>
 *   <li>time never runs backwards for a key (R15); a key idle for any time is simply full;</li>
 *   <li>every method is thread-safe; concurrent decisions on one key never admit more than the
 *       policies allow.</li>
 * </ul>
 *
 * <p><b>Concurrency policies</b> ({@link dev.sluice.limiter.ConcurrencyPolicy}, quota unit
 * {@code concurrent-requests}): {@link #decide} takes one slot of each with the rest of the charge
 * (all or none); the caller gives them back with {@link #release} exactly once when the request has
 * ended (its answer completed, or its client went away), whatever the answer was. {@link #refund} never
 * touches them. A store says whether it can hold such policies with
 * {@link #supportsConcurrencyPolicies()}; the edge refuses a configuration that needs them on a store
 * that cannot. What a shared store needs for them: one entry per admitted request (e.g. a Redis sorted
 * set per key and policy, member = {@link Allowed#lease()}, score = the lease's expiry), so that
 * {@link #release} removes exactly that request's slot and the slots of a replica that died expire by
 * themselves; {@code decide} drops expired members and counts the rest in the same script that charges
 * the other policies.
 *
 * <p>Keys are opaque strings chosen by the caller (the edge uses the authenticated API key, plus the
 * partition key where a policy has one).
 */
public interface LimiterStore extends AutoCloseable {

    /**
     * Decides one request of {@code key} under {@code plan}, charging every policy its cost from
     * {@code costs} if all admit, none otherwise (SPEC §3.3).
     *
     * @return {@link dev.sluice.limiter.Allowed}, {@link dev.sluice.limiter.Denied} or
     *     {@link dev.sluice.limiter.CostExceedsBurst}; a shared store that cannot answer in bounded
     *     time and fails closed returns {@link dev.sluice.limiter.Unavailable} (SPEC §3.14); never
     *     {@code null}
     * @throws NullPointerException if an argument is {@code null}
     */
    Decision decide(String key, Plan plan, Costs costs);

    /**
     * Each policy's standing for {@code key} now, without charging anything (SPEC §3.6
     * {@code GET /v1/usage}): {@code r}, {@code t}, {@code used} and, for quota policies,
     * {@code reset_at}. A key the store has never seen (or has forgotten because it was full) reads
     * as full.
     *
     * @return one state per policy, in plan order
     */
    List<PolicyState> usage(String key, Plan plan);

    /**
     * Gives back what {@code charge} took from {@code key} (SPEC §3.9: an upstream 503 is refunded to
     * the policies it was charged to). A burst policy never refills beyond full; a quota policy is
     * refunded only if its window has not rolled over since the charge. Refunding twice refunds
     * twice: call it once per charge. Concurrency slots are not refunded here (see {@link #release}).
     */
    void refund(String key, Allowed charge);

    /**
     * Gives back the concurrency slots {@code charge} holds (SPEC §1 {@code concurrent-requests}): call
     * it exactly once per {@link Allowed} whose plan {@linkplain Plan#hasConcurrencyPolicy() has a
     * concurrency policy}, when the request has ended (answer complete, upstream failed, or client gone).
     * A no-op for other plans. A slot is never released below zero, and a slot of a plan replaced by a
     * configuration reload is released from the policy of the same name and quota, if the key still has
     * one.
     *
     * <p>The default does nothing for a plan without concurrency policies and throws otherwise: a
     * store that {@linkplain #supportsConcurrencyPolicies() supports them} overrides it.
     *
     * @throws UnsupportedOperationException if the plan has a concurrency policy and the store does not
     *     support them
     */
    default void release(String key, Allowed charge) {
        if (charge.plan().hasConcurrencyPolicy()) {
            throw new UnsupportedOperationException(getClass().getSimpleName()
                    + " does not hold concurrent-requests policies");
        }
    }

    /**
     * Whether this store can decide plans with a {@link dev.sluice.limiter.ConcurrencyPolicy} (and
     * {@link #release} their slots). {@code false} by default; a store that does not support them may
     * fail {@link #decide} on such a plan.
     */
    default boolean supportsConcurrencyPolicies() {
        return false;
    }

    /**
     * {@link #decide} without blocking the caller: a network store completes the stage when its
     * answer arrives; the in-memory store (the default) answers at once. An event loop calls this.
     */
    default CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
        return CompletableFuture.completedFuture(decide(key, plan, costs));
    }

    /**
     * {@link #usage} without blocking the caller; see {@link #decideAsync}. A shared store failing closed
     * that cannot read its state completes it exceptionally with {@link StoreUnavailableException}.
     */
    default CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
        return CompletableFuture.completedFuture(usage(key, plan));
    }

    /** {@link #refund} without blocking the caller; see {@link #decideAsync}. */
    default CompletionStage<Void> refundAsync(String key, Allowed charge) {
        refund(key, charge);
        return CompletableFuture.completedFuture(null);
    }

    /** {@link #release} without blocking the caller; see {@link #decideAsync}. */
    default CompletionStage<Void> releaseAsync(String key, Allowed charge) {
        try {
            release(key, charge);
            return CompletableFuture.completedFuture(null);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Checks, when configuration is loaded, that this store can decide under {@code plan}, so a plan it
     * cannot represent fails at start (or is refused at reload) rather than on a request. The in-memory
     * store decides every valid plan (the default does nothing); a Redis store refuses a burst policy
     * outside its script's exact integer range.
     *
     * @throws IllegalArgumentException naming the policy and the reason, when it cannot
     */
    default void validate(Plan plan) {}

    /**
     * This store deciding with {@code mode} when its shared state cannot be reached in time (SPEC §3.14:
     * fail-open-degraded by default, fail-closed where configured, e.g. per route). The view shares this
     * store's state, connections and counters; closing it does nothing. A store that never loses its
     * state (the in-memory store: the default) returns itself. Cheap to call per request: a store
     * returns one cached view per mode.
     */
    default LimiterStore withFailureMode(FailureMode mode) {
        return this;
    }

    /** Releases connections or threads the store holds; the in-memory store holds none. */
    @Override
    default void close() {}
}
