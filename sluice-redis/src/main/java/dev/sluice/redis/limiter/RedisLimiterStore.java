package dev.sluice.redis.limiter;


import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.ForwardingLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.RedisTopologyException;
import dev.sluice.redis.RedisUnavailableException;
import dev.sluice.redis.internal.BoundedScriptCall;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.internal.LuaScript;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LimiterStore} whose state lives in Redis, so N edge replicas enforce one global limit
 * (SPEC §3.14; R17).
 *
 * <p><b>One round trip per decision.</b> Every policy of the key's plan is decided by one server-side
 * Lua script ({@code limiter.lua}), atomically: all policies admit and all are charged, or none is
 * (SPEC §3.3). The script mirrors {@link dev.sluice.limiter.gcra.Gcra} and
 * {@link dev.sluice.limiter.quota.QuotaCounter} in integer microseconds (ticks) only, so it decides
 * exactly as the in-memory store does; the {@code r}, {@code t} and Retry-After reported are then
 * computed from its reply by the limiter's own Java functions. Its clock is the server's {@code TIME}:
 * one clock for all replicas ({@link RedisLimiterConfig#scriptTime()} substitutes a test clock). It is
 * sent by {@code EVALSHA} and reloaded transparently on {@code NOSCRIPT}.
 *
 * <p><b>Keys.</b> One string per key and policy, {@code <prefix>{<key>}:<policy>}: the hash tag puts
 * a key's policies in one Redis Cluster slot. Every write sets an expiry no shorter than the time for
 * that state to be full again (and at least {@code minKeyTtl}); a full state is deleted, since an
 * absent key reads as full; a denial or usage read that finds a key without expiry gives it one (R16).
 *
 * <p><b>Concurrency policies</b> ({@code concurrent-requests}) are decided by the same script call: each
 * admission adds a permit ({@link Allowed#lease()}, unique per decision) to a sorted set per key and
 * policy, scored by its expiry (script clock + {@code concurrencyLease}); permits past their expiry are
 * not counted and are trimmed, so the slots of a replica that died mid-request come back after the
 * lease. {@link #release} removes the permit. A denial by any policy adds no permit (SPEC §3.3).
 *
 * <p><b>Hot keys.</b> A key Redis just refused is answered from a short local deny cache, bounded by
 * the Retry-After and {@code denyCacheMaxAge}, without a round trip.
 *
 * <p><b>Failures.</b> Each call waits at most {@code decisionTimeout} (default 50 ms). A timeout or a
 * connection failure answers by the {@link FailureMode}: a local limiter at {@code q/N} (default) or
 * {@link Unavailable}; the shared {@link RedisEndpoint} marks Redis down after a few consecutive
 * failures, sends nothing until a probe answers, and comes back by itself. A decision that timed out
 * but was applied by Redis later is refunded there, so a slow Redis does not charge twice. Fallbacks
 * are counted ({@link #stats()}) and logged at most once per 10 s. {@link #withFailureMode} gives a view
 * of the same store answering by the other mode (the edge's per-route {@code failure-mode}).
 *
 * <p><b>Threads.</b> {@link #decideAsync} never blocks: it completes on Lettuce's I/O thread (a
 * reply), the endpoint's timer thread (a timeout) or the caller's thread (an answer without Redis).
 * {@link #decide} waits for it, at most about the decision timeout; never call it on an event loop.
 *
 * <p>Thread-safe.
 */
public final class RedisLimiterStore implements LimiterStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisLimiterStore.class);
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private final RedisEndpoint endpoint;
    private final boolean ownsEndpoint;
    private final RedisLimiterConfig config;
    private final BoundedScriptCall calls;
    private final String minTtlMillis;
    private final ConcurrentHashMap<Plan, PlanLayout> layouts = new ConcurrentHashMap<>();
    private final DenyCache denyCache;
    private final LocalFallback fallback;
    private final LongAdder redisDecisions = new LongAdder();
    private final LongAdder denyCacheHits = new LongAdder();
    private final LongAdder fallbackDecisions = new LongAdder();
    private final LongAdder unavailableDecisions = new LongAdder();
    private final LongAdder lateRefunds = new LongAdder();
    private final LongAdder droppedRefunds = new LongAdder();
    private final LongAdder droppedReleases = new LongAdder();
    /** Permit ids: this store's random id, then a counter; unique across replicas and restarts. */
    private final String permitPrefix = java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 16) + ":";
    private final AtomicLong permits = new AtomicLong();
    private final String leaseMicros;
    private final AtomicLong lastLogNanos;
    private final AtomicLong unloggedFallbacks = new AtomicLong();
    private volatile boolean closed;
    private final ModeView failOpenView = new ModeView(FailureMode.FAIL_OPEN_DEGRADED);
    private final ModeView failClosedView = new ModeView(FailureMode.FAIL_CLOSED);

    /**
     * A store over {@code endpoint}, which the caller shares with other stores and closes itself.
     *
     * @throws NullPointerException if an argument is {@code null}
     * @throws RedisTopologyException if the endpoint is a cluster and the key prefix has a hash tag brace
     */
    public RedisLimiterStore(RedisEndpoint endpoint, RedisLimiterConfig config) {
        this(endpoint, false, config, limiterScript(), true);
    }

    /** {@code preload}: load the script as soon as Redis is up (tests of the NOSCRIPT path pass false). */
    RedisLimiterStore(RedisEndpoint endpoint, boolean ownsEndpoint, RedisLimiterConfig config, LuaScript script,
            boolean preload) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.ownsEndpoint = ownsEndpoint;
        this.config = Objects.requireNonNull(config, "config");
        HashTags.requireUsablePrefix("keyPrefix", config.keyPrefix(), endpoint);
        this.minTtlMillis = Long.toString(config.minKeyTtl().toMillis());
        this.leaseMicros = Long.toString(config.concurrencyLease().toNanos() / 1_000);
        this.denyCache = config.denyCacheMaxAge().isZero()
                ? null
                : new DenyCache(config.localTime(), config.denyCacheMaxAge().toNanos(), config.denyCacheMaxEntries());
        this.fallback = new LocalFallback(config.localTime(), config.replicaCount(), config.unavailableRetryAfter());
        this.lastLogNanos = new AtomicLong(config.localTime().nanoTime() - LOG_EVERY_NANOS);
        this.calls = new BoundedScriptCall(endpoint, script, config.decisionTimeout(), "redis limiter");
        this.preloaded = preload ? calls.preloadWhenUp() : CompletableFuture.completedFuture(null);
    }

    private final CompletableFuture<?> preloaded;

    /** A fresh instance of {@code limiter.lua} (each store counts its own loads). */
    static LuaScript limiterScript() {
        return LuaScript.resource(RedisLimiterStore.class, "limiter.lua");
    }

    /**
     * A store with its own {@link RedisEndpoint} at {@code uri} (closed with the store): the edge's
     * {@code store: redis://...} setting ({@link dev.sluice.redis.RedisUrl}: one server, a
     * {@code redis-cluster://} or a {@code redis-sentinel://} URL). Waits for the first connection
     * attempt to end (at most ten connect timeouts: a cold JVM first loads the client) and then for the
     * script's load at most one connect timeout (1 s), then returns either way: a Redis that is down at
     * start is answered for by the failure mode until the probe connects.
     *
     * @throws IllegalArgumentException if the URI cannot be parsed
     * @throws RedisTopologyException if Redis answered and is deployed otherwise than the URL says
     */
    public static RedisLimiterStore open(String uri, RedisLimiterConfig config) {
        return open(RedisEndpointConfig.of(uri), config);
    }

    /**
     * {@link #open(String, RedisLimiterConfig)} with endpoint settings of its own.
     *
     * @throws IllegalArgumentException if the URI cannot be parsed
     * @throws RedisTopologyException if Redis is deployed otherwise than the URL says (a {@code redis://}
     *     URL at a cluster node, a {@code redis-cluster://} URL at a server with cluster support disabled, a
     *     sentinel without the URL's master), or the key prefix has a hash tag brace on a cluster
     */
    public static RedisLimiterStore open(RedisEndpointConfig endpointConfig, RedisLimiterConfig config) {
        RedisEndpoint endpoint = RedisEndpoint.connect(endpointConfig);
        RedisLimiterStore store;
        try {
            // the first attempt (a cold JVM loads Lettuce and Netty first: bounded at 10 connect timeouts)
            long connect = endpointConfig.connectTimeout().toNanos();
            endpoint.awaitFirstAttempt(Duration.ofNanos(10 * connect));
            store = new RedisLimiterStore(endpoint, true, config, limiterScript(), true);
            try {
                store.preloaded.get(connect, TimeUnit.NANOSECONDS); // then the script's load
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                // not up yet: the failure mode answers until the probe connects (NOSCRIPT loads it then)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } catch (RuntimeException e) {
            endpoint.close();
            throw e;
        }
        return store;
    }

    /** The configuration. */
    public RedisLimiterConfig config() {
        return config;
    }

    /** The endpoint this store talks through (its health and counters). */
    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Whether {@code decision} was made by the local fallback at {@code q/N} rather than by Redis: its
     * {@link Decision#plan()} is then the degraded plan (the edge may log it, or answer 503 on a route
     * that must fail closed).
     */
    public boolean isFallback(Decision decision) {
        return fallback.isDegraded(decision.plan());
    }

    /**
     * Checks that every policy of {@code plan} is within the script's exact range (see
     * {@link PlanLayout}): call it when configuration is loaded, so a bad plan fails at start.
     *
     * @throws IllegalArgumentException naming the policy
     */
    @Override
    public void validate(Plan plan) {
        layout(plan);
    }

    /**
     * The view shares the endpoint, the deny cache, the local fallback (so a key's local share is one
     * whichever route spends it) and the counters; only what answers when Redis does not differs. This
     * store itself when {@code mode} is its configured one.
     */
    @Override
    public LimiterStore withFailureMode(FailureMode mode) {
        Objects.requireNonNull(mode, "mode");
        if (mode == config.failureMode()) {
            return this;
        }
        return mode == FailureMode.FAIL_CLOSED ? failClosedView : failOpenView;
    }

    /** This store answering by another failure mode; see {@link #withFailureMode}. Closing it does nothing. */
    private final class ModeView extends ForwardingLimiterStore {
        private final FailureMode mode;

        ModeView(FailureMode mode) {
            super(RedisLimiterStore.this);
            this.mode = mode;
        }

        @Override
        public Decision decide(String key, Plan plan, Costs costs) {
            return await(decideAsync(key, plan, costs));
        }

        @Override
        public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
            return RedisLimiterStore.this.decideAsync(key, plan, costs, mode);
        }

        @Override
        public List<PolicyState> usage(String key, Plan plan) {
            return RedisLimiterStore.this.joinUsage(usageAsync(key, plan));
        }

        @Override
        public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
            return RedisLimiterStore.this.usageAsync(key, plan, mode);
        }

        @Override
        public void close() {}

        @Override
        public String toString() {
            return "RedisLimiterStore[" + mode + " view]";
        }
    }

    /**
     * The command this store sends to Redis to decide one request of {@code key} under {@code plan}:
     * {@code EVALSHA}, the script's SHA-1, the key count, the keys, the arguments (the clock argument
     * empty, so the script reads the server's {@code TIME}, as in production). Sends nothing and
     * charges nothing: for measuring the script's own ceiling on a server, e.g. with
     * {@code redis-benchmark}, where running it does charge {@code key}.
     *
     * @throws IllegalArgumentException if {@code plan} has a concurrency policy (its permit id is per
     *     request) or is outside the script's range ({@link #validate})
     */
    public List<String> decisionCommand(String key, Plan plan, Costs costs) {
        if (plan.hasConcurrencyPolicy()) {
            throw new IllegalArgumentException("plan " + plan.name() + ": a concurrency policy's permit id is per request");
        }
        PlanLayout layout = layout(plan);
        String[] keys = layout.keys(config.keyPrefix(), key);
        String[] args = layout.args("D", "", minTtlMillis, costs, leaseMicros, "");
        List<String> command = new java.util.ArrayList<>(3 + keys.length + args.length);
        command.add("EVALSHA");
        command.add(calls.script().sha());
        command.add(Integer.toString(keys.length));
        command.addAll(List.of(keys));
        command.addAll(List.of(args));
        return List.copyOf(command);
    }

    // ---------------------------------------------------------------------------------- decide

    /**
     * Blocks at most about {@code decisionTimeout}; see the class comment.
     *
     * @throws IllegalArgumentException if a burst policy of {@code plan} is outside the script's exact
     *     range ({@link #validate})
     */
    @Override
    public Decision decide(String key, Plan plan, Costs costs) {
        return await(decideAsync(key, plan, costs));
    }

    /**
     * Decides in one script call, without blocking the caller.
     *
     * @throws IllegalArgumentException if a burst policy of {@code plan} is outside the script's exact
     *     range ({@link #validate})
     * @throws IllegalStateException if the store is closed
     */
    @Override
    public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
        return decideAsync(key, plan, costs, config.failureMode());
    }

    private CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs, FailureMode mode) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(costs, "costs");
        requireOpen();
        int over = plan.indexOfCostExceedingQuota(costs);
        if (over >= 0) {
            Policy p = plan.policy(over);
            return CompletableFuture.completedFuture(new CostExceedsBurst(plan, p, costs.costFor(p)));
        }
        PlanLayout layout = layout(plan);
        if (denyCache != null) {
            Denied cached = denyCache.answer(key, plan, costs);
            if (cached != null) {
                denyCacheHits.increment();
                return CompletableFuture.completedFuture(cached);
            }
        }
        String[] keys = layout.keys(config.keyPrefix(), key);
        String permit = layout.hasConcurrency() ? permitPrefix + Long.toString(permits.incrementAndGet(), 36) : "";
        String[] args = layout.args("D", nowArg(), minTtlMillis, costs, leaseMicros, permit);
        return call(keys, args, false,
                reply -> onDecision(key, plan, costs, reply, permit),
                late -> {
                    // answered locally after a timeout, yet Redis charged it: give that charge (and slot) back
                    if (late.admitted()) {
                        lateRefunds.increment();
                        Allowed charge = (Allowed) ScriptStates.decision(plan, costs, true, late.nowMicros(),
                                late.values(), permit);
                        refundOnRedis(key, layout, charge, true);
                        if (layout.hasConcurrency()) {
                            releaseOnRedis(key, layout, charge, true);
                        }
                    }
                },
                cause -> fallbackDecision(key, plan, costs, cause, mode));
    }

    private Decision onDecision(String key, Plan plan, Costs costs, Reply reply, String permit) {
        redisDecisions.increment();
        Decision d = ScriptStates.decision(plan, costs, reply.admitted(), reply.nowMicros(), reply.values(), permit);
        if (denyCache != null) {
            if (d instanceof Denied denied) {
                denyCache.remember(key, plan, denied, reply.values(), reply.nowMicros());
            } else {
                denyCache.forget(key);
            }
        }
        return d;
    }

    private Decision fallbackDecision(String key, Plan plan, Costs costs, String cause, FailureMode mode) {
        if (mode == FailureMode.FAIL_CLOSED) {
            unavailableDecisions.increment();
            logFallback(cause, mode);
            return new Unavailable(plan, config.unavailableRetryAfter(), cause);
        }
        Decision d = fallback.decide(key, plan, costs, cause);
        if (d instanceof Unavailable) {
            unavailableDecisions.increment();
        } else {
            fallbackDecisions.increment();
        }
        logFallback(cause, mode);
        return d;
    }

    // ----------------------------------------------------------------------------------- usage

    /**
     * The key's standing under {@code plan}, read without charging it.
     *
     * @throws RedisUnavailableException when Redis does not answer in time and the store fails closed
     *     (fail-open: the local share's standing is returned)
     */
    @Override
    public List<PolicyState> usage(String key, Plan plan) {
        return joinUsage(usageAsync(key, plan));
    }

    private List<PolicyState> joinUsage(CompletionStage<List<PolicyState>> usage) {
        try {
            return await(usage);
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RedisUnavailableException u) {
                throw u;
            }
            throw e;
        }
    }

    /** Completes exceptionally with {@link RedisUnavailableException} as {@link #usage} throws it. */
    @Override
    public CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan) {
        return usageAsync(key, plan, config.failureMode());
    }

    private CompletionStage<List<PolicyState>> usageAsync(String key, Plan plan, FailureMode mode) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        requireOpen();
        if (fallback.isDegraded(plan)) {
            return CompletableFuture.completedFuture(fallback.usage(key, plan));
        }
        PlanLayout layout = layout(plan);
        String[] keys = layout.keys(config.keyPrefix(), key);
        String[] args = layout.args("U", nowArg(), minTtlMillis, null, leaseMicros, "");
        return call(keys, args, false,
                reply -> ScriptStates.states(plan, reply.values(), ScriptStates.instantOfMicros(reply.nowMicros())),
                late -> {},
                cause -> {
                    if (mode == FailureMode.FAIL_CLOSED) {
                        throw new RedisUnavailableException("usage of " + plan.name() + ": " + cause, null);
                    }
                    return fallback.usage(key, plan);
                });
    }

    // ---------------------------------------------------------------------------------- refund

    @Override
    public void refund(String key, Allowed charge) {
        await(refundAsync(key, charge));
    }

    /**
     * A charge made by the local fallback is refunded locally. A refund Redis does not confirm within
     * the timeout is dropped and counted, not retried: a retried refund could give back twice. Never
     * completes exceptionally.
     */
    @Override
    public CompletionStage<Void> refundAsync(String key, Allowed charge) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(charge, "charge");
        requireOpen();
        if (denyCache != null) {
            denyCache.forget(key); // the refund may make it admissible: ask Redis next time
        }
        if (fallback.isDegraded(charge.plan())) {
            fallback.refund(key, charge);
            return CompletableFuture.completedFuture(null);
        }
        return refundOnRedis(key, layout(charge.plan()), charge, false);
    }

    /** {@code evenIfDown}: a late reply just proved Redis answers, though the probe has not said so yet. */
    private CompletionStage<Void> refundOnRedis(String key, PlanLayout layout, Allowed charge, boolean evenIfDown) {
        String[] keys = layout.keys(config.keyPrefix(), key);
        String[] args = layout.refundArgs(nowArg(), minTtlMillis, charge);
        return call(keys, args, evenIfDown, reply -> (Void) null, late -> {}, cause -> {
            droppedRefunds.increment();
            logFallback("refund dropped: " + cause, config.failureMode());
            return null;
        });
    }

    // --------------------------------------------------------------------------------- release

    /**
     * Removes the request's permit ({@link Allowed#lease()}) from each concurrency policy's sorted
     * set, in one script call. Blocks at most about {@code decisionTimeout}; never throws for a store
     * failure (see {@link #releaseAsync}).
     */
    @Override
    public void release(String key, Allowed charge) {
        await(releaseAsync(key, charge));
    }

    /**
     * A slot the local fallback gave is released locally. A release Redis does not confirm within the
     * timeout is sent again until Redis confirms it, for at most one lease: releasing twice releases once.
     * One never confirmed is counted ({@code stats().droppedReleases()}), and its slot comes back when its
     * permit's lease ({@code concurrencyLease}) ends. Completes when the first attempt is answered or
     * timed out; never completes exceptionally.
     */
    @Override
    public CompletionStage<Void> releaseAsync(String key, Allowed charge) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(charge, "charge");
        if (!charge.plan().hasConcurrencyPolicy()) {
            return CompletableFuture.completedFuture(null);
        }
        requireOpen();
        if (denyCache != null) {
            denyCache.forget(key); // a cached denial counted this slot: ask Redis next time
        }
        if (fallback.isDegraded(charge.plan())) {
            fallback.release(key, charge);
            return CompletableFuture.completedFuture(null);
        }
        return releaseOnRedis(key, layout(charge.plan()), charge, false);
    }

    /** A release is idempotent (it removes one named permit), so one that failed is sent again, this often at most. */
    private static final int RELEASE_ATTEMPTS = 20;
    /** The pause before sending a failed release again while Redis is still considered up. */
    private static final long RELEASE_RETRY_DELAY_MILLIS = 100;

    /** Always {@code true}: in-flight requests are permits in Redis, one sorted set per key and policy. */
    @Override
    public boolean supportsConcurrencyPolicies() {
        return true;
    }

    /**
     * Removes {@code charge}'s permit. A failed release is sent again (unlike a refund, sending it twice is
     * harmless): after a short pause while Redis is considered up, as soon as it is up again otherwise,
     * until one lease has passed (the permit has expired by then) or {@value #RELEASE_ATTEMPTS} attempts.
     * The returned stage completes with the first attempt. A release never confirmed is counted in
     * {@code droppedReleases}; its slot comes back when its lease ends.
     */
    private CompletionStage<Void> releaseOnRedis(String key, PlanLayout layout, Allowed charge, boolean evenIfDown,
            int attempt, long deadlineNanos) {
        String[] keys = layout.keys(config.keyPrefix(), key);
        String[] args = layout.args("L", nowArg(), minTtlMillis, null, leaseMicros, charge.lease());
        return call(keys, args, evenIfDown, reply -> (Void) null, late -> {}, cause -> {
            retryRelease(key, layout, charge, attempt + 1, deadlineNanos, cause);
            return null;
        });
    }

    private CompletionStage<Void> releaseOnRedis(String key, PlanLayout layout, Allowed charge, boolean evenIfDown) {
        return releaseOnRedis(key, layout, charge, evenIfDown, 1,
                config.localTime().nanoTime() + config.concurrencyLease().toNanos());
    }

    private void retryRelease(String key, PlanLayout layout, Allowed charge, int attempt, long deadlineNanos,
            String cause) {
        if (closed || attempt > RELEASE_ATTEMPTS || config.localTime().nanoTime() - deadlineNanos >= 0) {
            droppedReleases.increment();
            logFallback("release dropped (the slot comes back after its lease): " + cause, config.failureMode());
            return;
        }
        Runnable again = () -> endpoint.whenUp().thenRun(() -> {
            if (!closed) {
                releaseOnRedis(key, layout, charge, false, attempt, deadlineNanos);
            }
        });
        if (!endpoint.isUp()) {
            again.run(); // the probe says when it is back
            return;
        }
        try {
            endpoint.timer().schedule(again, RELEASE_RETRY_DELAY_MILLIS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            droppedReleases.increment(); // closing
        }
    }

    // ------------------------------------------------------------------------------ the call

    /** The script's reply: admitted, the server time it used, two values per policy. */
    record Reply(boolean admitted, long nowMicros, long[] values) {
        static Reply of(List<Object> raw) {
            long[] values = new long[raw.size() - 2];
            for (int i = 0; i < values.length; i++) {
                values[i] = (Long) raw.get(i + 2);
            }
            return new Reply((Long) raw.get(0) == 1L, (Long) raw.get(1), values);
        }
    }

    /**
     * Runs the script with a bounded wait ({@link BoundedScriptCall}). Exactly one of {@code onReply} and
     * {@code onFailure} answers; a reply that arrives after {@code onFailure} answered goes to
     * {@code onLateReply}. An error reply or a reply this store cannot read is answered as without Redis
     * (and logged by {@link BoundedScriptCall}, at most one line every 10 s).
     */
    private <T> CompletionStage<T> call(String[] keys, String[] args, boolean evenIfDown, Function<Reply, T> onReply,
            java.util.function.Consumer<Reply> onLateReply, Function<String, T> onFailure) {
        return calls.call(keys, args, evenIfDown, raw -> onReply.apply(Reply.of(raw)),
                raw -> onLateReply.accept(Reply.of(raw)), failure -> onFailure.apply(failure.reason()));
    }

    // --------------------------------------------------------------------------------- helpers

    /** Waits for {@code stage} after sending what is written (a blocked event loop would never flush it). */
    <T> T await(CompletionStage<T> stage) {
        endpoint.flushScriptsNow();
        return stage.toCompletableFuture().join();
    }

    private String nowArg() {
        if (config.scriptTime() == null) {
            return "";
        }
        Instant now = config.scriptTime().now();
        return Long.toString(Math.addExact(Math.multiplyExact(now.getEpochSecond(), 1_000_000L), now.getNano() / 1_000));
    }

    private PlanLayout layout(Plan plan) {
        PlanLayout l = layouts.get(plan);
        if (l == null) {
            if (layouts.size() > 4_096) {
                layouts.clear(); // plans come from configuration; this only guards against a caller minting plans
            }
            l = layouts.computeIfAbsent(plan, PlanLayout::of);
        }
        return l;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("RedisLimiterStore is closed");
        }
    }

    private void logFallback(String cause, FailureMode mode) {
        unloggedFallbacks.incrementAndGet();
        long now = config.localTime().nanoTime();
        long last = lastLogNanos.get();
        if (now - last >= LOG_EVERY_NANOS && lastLogNanos.compareAndSet(last, now)) {
            long count = unloggedFallbacks.getAndSet(0);
            LOG.warn("redis limiter answered {} request(s) without redis since the last such line ({}; latest cause: {})",
                    count,
                    mode == FailureMode.FAIL_CLOSED
                            ? "fail-closed: 503"
                            : "fail-open-degraded: local q/" + config.replicaCount(),
                    cause);
        }
    }

    /** Counters since the store was made. */
    public RedisLimiterStats stats() {
        return new RedisLimiterStats(redisDecisions.sum(), denyCacheHits.sum(), fallbackDecisions.sum(),
                unavailableDecisions.sum(), calls.timeouts(), calls.errors(), lateRefunds.sum(), droppedRefunds.sum(),
                droppedReleases.sum(), calls.script().loads());
    }

    /** Closes the endpoint if the store opened it ({@link #open}); a shared endpoint stays open. */
    @Override
    public void close() {
        closed = true;
        if (ownsEndpoint) {
            endpoint.close();
        }
    }
}
