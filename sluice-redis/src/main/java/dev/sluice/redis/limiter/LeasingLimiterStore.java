package dev.sluice.redis.limiter;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.ForwardingLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * <b>Lease mode</b>: an <em>approximate</em>, cheaper {@link LimiterStore} over a
 * {@link RedisLimiterStore}, for limits that need not be strict (SPEC §3.14 hot keys). Instead of one
 * round trip per request, a replica charges a batch of {@code leaseUnits} units to every policy of the
 * key's plan in one round trip (one atomic decision, so the batch is within every limit when taken)
 * and then admits the key's next requests from that batch locally, until it is spent or
 * {@code leaseTtl} passes; the unspent rest is then refunded to Redis.
 *
 * <p><b>Over-admission bound.</b> Every admitted unit was charged on Redis before it was spent, so over
 * the whole run the replicas admit no more than Redis granted. What changes is <em>when</em>: a unit
 * charged before an interval may be spent inside it. Each replica holds at most {@code leaseUnits}
 * units of a key at a time, so with {@code N} replicas:
 * <ul>
 *   <li>a burst policy ({@code q} per {@code w}): in any interval of length {@code d}, at most
 *       {@code q + (q/w)·d + N·leaseUnits} are admitted (strict GCRA: {@code q + (q/w)·d});</li>
 *   <li>a quota policy: at most {@code q + N·leaseUnits} in one calendar window (a lease taken before
 *       the reset may be spent just after it, counted against the old window).</li>
 * </ul>
 * It also <em>under</em>-admits: units leased by one replica are unavailable to the others until spent
 * or returned, and a returned burst unit that has meanwhile refilled is lost (a bucket never fills past
 * full). Refunds of leased units are made at expiry, on the key's next request or by
 * {@link #returnExpiredLeases()} (run it periodically), and at {@link #close()}.
 *
 * <p><b>What the client is told.</b> A request admitted from a lease carries the states Redis reported
 * when the lease was taken, with the units still unspent in the lease added to {@code r} (they are still
 * this replica's to give): approximate, never more than {@code q}. Denials always come from Redis.
 *
 * <p>Only plans whose policies all count requests are leased (a content-bytes cost varies per
 * request; a concurrency slot is one request's, held until it ends); other plans, fallback decisions
 * and a batch Redis refuses go straight to the store, one round trip per request.
 * {@link #withFailureMode} gives a view sharing the leases whose round trips answer by another
 * failure mode. Thread-safe.
 */
public final class LeasingLimiterStore implements LimiterStore {

    private final RedisLimiterStore redis;
    private final long leaseUnits;
    private final long leaseTtlNanos;
    private final TimeSource time;
    private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();
    private final LongAdder leasesTaken = new LongAdder();
    private final LongAdder admittedFromLeases = new LongAdder();
    private final LongAdder unitsReturned = new LongAdder();
    private final boolean ownsRedis;
    private final ScheduledFuture<?> returner;
    private final LimiterStore failOpenView;
    private final LimiterStore failClosedView;

    /** One key's batch: the Redis charge it came from and the units left. Guarded by its monitor. */
    private static final class Lease {
        final Plan plan;
        final Allowed charge;
        final long expiresAtNanos;
        long left;

        Lease(Plan plan, Allowed charge, long left, long expiresAtNanos) {
            this.plan = plan;
            this.charge = charge;
            this.left = left;
            this.expiresAtNanos = expiresAtNanos;
        }
    }

    /**
     * @param redis the strict store the leases are charged to (not closed by this store's {@link #close()})
     * @param leaseUnits units per lease, ≥ 2 (capped per plan at its smallest {@code q})
     * @param leaseTtl how long a lease may be spent before its rest goes back to Redis, &gt; 0
     * @param time the local clock (lease expiry)
     * @throws IllegalArgumentException when a value is out of range
     */
    public LeasingLimiterStore(RedisLimiterStore redis, long leaseUnits, Duration leaseTtl, TimeSource time) {
        this(redis, leaseUnits, leaseTtl, time, false);
    }

    /**
     * A leasing store that owns {@code redis}: it returns expired leases every {@code leaseTtl} on the
     * endpoint's timer thread, and {@link #close()} closes {@code redis} after returning every lease. The
     * edge's {@code store.lease} setting.
     *
     * @throws IllegalArgumentException when a value is out of range
     */
    public static LeasingLimiterStore owning(RedisLimiterStore redis, long leaseUnits, Duration leaseTtl,
            TimeSource time) {
        return new LeasingLimiterStore(redis, leaseUnits, leaseTtl, time, true);
    }

    private LeasingLimiterStore(RedisLimiterStore redis, long leaseUnits, Duration leaseTtl, TimeSource time,
            boolean owning) {
        this.redis = Objects.requireNonNull(redis, "redis");
        if (leaseUnits < 2) {
            throw new IllegalArgumentException("leaseUnits: must be >= 2, was " + leaseUnits);
        }
        if (leaseTtl == null || leaseTtl.isNegative() || leaseTtl.isZero()) {
            throw new IllegalArgumentException("leaseTtl: must be > 0, was " + leaseTtl);
        }
        this.leaseUnits = leaseUnits;
        this.leaseTtlNanos = leaseTtl.toNanos();
        this.time = Objects.requireNonNull(time, "time");
        this.ownsRedis = owning;
        ScheduledFuture<?> task = null;
        if (owning) {
            try {
                task = redis.endpoint().timer().scheduleWithFixedDelay(this::returnExpiredLeasesQuietly,
                        leaseTtlNanos, leaseTtlNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                throw new IllegalStateException("the redis endpoint is closed", e);
            }
        }
        this.returner = task;
        this.failOpenView = new ModeView(FailureMode.FAIL_OPEN_DEGRADED);
        this.failClosedView = new ModeView(FailureMode.FAIL_CLOSED);
    }

    /** The strict store the leases are charged to. */
    public RedisLimiterStore redis() {
        return redis;
    }

    private void returnExpiredLeasesQuietly() {
        try {
            returnExpiredLeases();
        } catch (RuntimeException e) {
            // a closed store or endpoint: the next run or close() returns the rest
        }
    }

    /** Delegates to the Redis store's check (every plan may go to Redis one request at a time). */
    @Override
    public void validate(Plan plan) {
        redis.validate(plan);
    }

    /**
     * The view spends the same leases; its round trips to Redis answer by {@code mode}.
     */
    @Override
    public LimiterStore withFailureMode(FailureMode mode) {
        Objects.requireNonNull(mode, "mode");
        if (mode == redis.config().failureMode()) {
            return this;
        }
        return mode == FailureMode.FAIL_CLOSED ? failClosedView : failOpenView;
    }

    /**
     * This store with Redis round trips answered by another failure mode; see {@link #withFailureMode}.
     * Closing it does nothing.
     */
    private final class ModeView extends ForwardingLimiterStore {
        private final LimiterStore strict;

        ModeView(FailureMode mode) {
            super(LeasingLimiterStore.this);
            this.strict = redis.withFailureMode(mode);
        }

        @Override
        public Decision decide(String key, Plan plan, Costs costs) {
            return redis.await(decideAsync(key, plan, costs));
        }

        @Override
        public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
            return LeasingLimiterStore.this.decideAsync(key, plan, costs, strict);
        }

        @Override
        public List<PolicyState> usage(String key, Plan plan) {
            return strict.usage(key, plan);
        }

        @Override
        public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
            return strict.usageAsync(key, plan);
        }

        @Override
        public void close() {}
    }

    @Override
    public Decision decide(String key, Plan plan, Costs costs) {
        return redis.await(decideAsync(key, plan, costs));
    }

    @Override
    public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
        return decideAsync(key, plan, costs, redis);
    }

    /** {@code strict}: the Redis store, or its view with another failure mode. */
    private CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs, LimiterStore strict) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(costs, "costs");
        int over = plan.indexOfCostExceedingQuota(costs);
        if (over >= 0) {
            Policy p = plan.policy(over);
            return CompletableFuture.completedFuture(new CostExceedsBurst(plan, p, costs.costFor(p)));
        }
        long batch = batchFor(plan);
        long cost = costs.requests();
        if (batch <= cost) {
            return strict.decideAsync(key, plan, costs); // nothing to gain: one round trip
        }
        Lease lease = leases.get(key);
        if (lease != null) {
            Allowed fromLease = spend(key, lease, plan, costs);
            if (fromLease != null) {
                return CompletableFuture.completedFuture(fromLease);
            }
        }
        return strict.decideAsync(key, plan, Costs.requests(batch)).thenCompose(d -> {
            if (d instanceof Allowed charge && !redis.isFallback(d)) {
                leasesTaken.increment();
                Lease mine = new Lease(plan, charge, batch - cost, time.nanoTime() + leaseTtlNanos);
                Lease previous = leases.put(key, mine);
                if (previous != null) {
                    giveBack(key, previous);
                }
                return CompletableFuture.completedFuture(reported(plan, costs, charge, batch - cost));
            }
            if (d instanceof Allowed localCharge) {
                redis.refundAsync(key, localCharge); // the fallback decided (local, at once): no leasing from a local share
            }
            return strict.decideAsync(key, plan, costs); // near the limit: ask for exactly this request
        });
    }

    /** The request admitted from {@code lease}, or {@code null} (spent, expired, another plan). */
    private Allowed spend(String key, Lease lease, Plan plan, Costs costs) {
        long cost = costs.requests();
        synchronized (lease) {
            boolean usable = lease.plan.equals(plan) && time.nanoTime() - lease.expiresAtNanos < 0;
            if (usable && lease.left >= cost) {
                lease.left -= cost;
                admittedFromLeases.increment();
                return reported(plan, costs, lease.charge, lease.left);
            }
        }
        if (leases.remove(key, lease)) {
            giveBack(key, lease);
        }
        return null;
    }

    /** Refunds what {@code lease} has left; the lease must no longer be reachable. */
    private CompletionStage<Void> giveBack(String key, Lease lease) {
        long left;
        synchronized (lease) {
            left = lease.left;
            lease.left = 0;
        }
        if (left <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        unitsReturned.add(left);
        return redis.refundAsync(key, new Allowed(lease.plan, Costs.requests(left), lease.charge.states()));
    }

    private static Allowed reported(Plan plan, Costs costs, Allowed charge, long left) {
        List<PolicyState> states = new ArrayList<>(plan.size());
        for (PolicyState s : charge.states()) {
            long r = Math.min(s.policy().quota(), s.remaining() + left);
            states.add(new PolicyState(s.policy(), r, s.resetSeconds(), s.policy().quota() - r, s.resetAtEpochSecond()));
        }
        return new Allowed(plan, costs, states);
    }

    private long batchFor(Plan plan) {
        long batch = leaseUnits;
        for (Policy p : plan.policies()) {
            if (p.unit() != QuotaUnit.REQUESTS) {
                return 0;
            }
            batch = Math.min(batch, p.quota());
        }
        return batch;
    }

    /**
     * Returns the unspent rest of every lease past its TTL to Redis; an edge runs it every
     * {@code leaseTtl} or so.
     *
     * @return how many leases were returned
     */
    public int returnExpiredLeases() {
        long now = time.nanoTime();
        int returned = 0;
        for (Map.Entry<String, Lease> e : leases.entrySet()) {
            if (now - e.getValue().expiresAtNanos >= 0 && leases.remove(e.getKey(), e.getValue())) {
                giveBack(e.getKey(), e.getValue());
                returned++;
            }
        }
        return returned;
    }

    /**
     * The key's standing on Redis: units leased by any replica and not yet spent or returned count as
     * used there.
     */
    @Override
    public List<PolicyState> usage(String key, Plan plan) {
        return redis.usage(key, plan);
    }

    /** {@link #usage} without blocking. */
    @Override
    public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
        return redis.usageAsync(key, plan);
    }

    /**
     * Every charge this store admitted was charged on Redis (by a lease or directly), so a refund goes
     * back into the key's live lease when there is room (to be spent again or returned with it), and to
     * Redis otherwise.
     */
    @Override
    public void refund(String key, Allowed charge) {
        redis.await(refundAsync(key, charge));
    }

    /** {@link #refund} without blocking: a refund into the lease is immediate, one to Redis is sent. */
    @Override
    public CompletionStage<Void> refundAsync(String key, Allowed charge) {
        long units = charge.costs().requests();
        Lease lease = leases.get(key);
        if (lease != null && lease.plan.equals(charge.plan())) {
            synchronized (lease) {
                boolean live = leases.get(key) == lease && time.nanoTime() - lease.expiresAtNanos < 0;
                if (live && lease.left + units <= batchFor(lease.plan)) {
                    lease.left += units;
                    return CompletableFuture.completedFuture(null);
                }
            }
        }
        return redis.refundAsync(key, charge);
    }

    /** Concurrency slots are never leased (such plans go to Redis one request at a time): released there. */
    @Override
    public void release(String key, Allowed charge) {
        redis.release(key, charge);
    }

    /** {@link #release} without blocking. */
    @Override
    public CompletionStage<Void> releaseAsync(String key, Allowed charge) {
        return redis.releaseAsync(key, charge);
    }

    /** As the Redis store: {@code true}. */
    @Override
    public boolean supportsConcurrencyPolicies() {
        return redis.supportsConcurrencyPolicies();
    }

    /**
     * Counters: leases taken, requests admitted from leases without a round trip, units returned.
     *
     * @param leasesTaken batches charged to Redis
     * @param admittedFromLeases requests admitted locally
     * @param unitsReturned leased units refunded unspent
     */
    public record LeaseStats(long leasesTaken, long admittedFromLeases, long unitsReturned) {}

    /** The counters since this store was made. */
    public LeaseStats stats() {
        return new LeaseStats(leasesTaken.sum(), admittedFromLeases.sum(), unitsReturned.sum());
    }

    /**
     * Returns every lease's unspent rest to Redis and waits for the refunds (each bounded by the
     * store's decision timeout); the underlying store stays open unless this store owns it
     * ({@link #owning}).
     */
    @Override
    public void close() {
        if (returner != null) {
            returner.cancel(false);
        }
        List<CompletableFuture<Void>> refunds = new ArrayList<>();
        for (Map.Entry<String, Lease> e : leases.entrySet()) {
            if (leases.remove(e.getKey(), e.getValue())) {
                refunds.add(giveBack(e.getKey(), e.getValue()).toCompletableFuture());
            }
        }
        CompletableFuture.allOf(refunds.toArray(CompletableFuture[]::new)).join();
        if (ownsRedis) {
            redis.close();
        }
    }
}
