package dev.sluice.redis.client;

import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.internal.LuaScript;
import java.util.List;
import java.util.Objects;

/**
 * The SDK pacer's token bucket kept in Redis, so N processes that call one provider under one limit
 * share one bucket and their sum stays under the limit (SPEC §4.6, §4.8). Plug it in with
 * {@code SluiceHttpClient.builder().tokenBucketStore(...)}; every process names the same limit.
 *
 * <p><b>One script call per operation</b> ({@code bucket.lua}), atomic, on the server's {@code TIME}
 * (the caller's {@code nowNanos} only measures local intervals), in integer micro-tokens and
 * microseconds. The hash {@code <prefix>{<limit>}:bucket} holds the tokens, the last refill, the pause
 * and the rate and capacity last configured; every write sets an expiry of at least the time until
 * the bucket is full and unpaused again, and at least {@code minKeyTtl} (R16).
 *
 * <ul>
 *   <li>{@link #tryAcquire} takes tokens (one synchronous round trip, at most the decision timeout).
 *       Each call carries this process's rate and capacity; the script stores them, and a process that
 *       has learned no limit yet paces by the stored one (another process read it from the provider's
 *       headers).</li>
 *   <li>{@link #clamp} (the provider reported {@code r} remaining) and {@link #drainAndPause} (a 429's
 *       Retry-After) change the shared state for every process: a 429 seen by one pauses all. They are
 *       sent without waiting; the next call on the same connection runs after them.</li>
 *   <li>{@link #configure} is local: the next script call carries it.</li>
 * </ul>
 *
 * <p><b>When Redis does not answer</b> (marked down by the shared {@link RedisEndpoint}, slower than the
 * decision timeout, or failing) the store paces this process alone with a local bucket at
 * {@code rate/N}, capacity {@code capacity/N} (at least 1), where {@code N} is
 * {@link SharedLimitsConfig#processCount()}; the local bucket follows every configure, clamp
 * ({@code r/N}) and pause, including pauses read from Redis. Answers made locally are counted
 * ({@link #stats()}) and logged (one line when a fallback period starts, then at most one per 10 s). The
 * store returns to Redis by itself once the endpoint's probe finds it answering. A call costing more
 * than the local share waits for the share to earn it (Redis may be back by then). A token Redis
 * granted after the call had been answered locally is not given back: the shared bucket is then
 * briefly stricter, never looser.
 *
 * <p>Range: rates up to 10<sup>6</sup> tokens/s and capacities up to 10<sup>9</sup> tokens (larger values
 * are clamped to these); waits are whole microseconds, rounded up.
 *
 * <p>Thread-safe; never holds a lock while waiting for Redis.
 */
public final class RedisTokenBucketStore implements TokenBucketStore {

    /** A fresh instance of {@code bucket.lua} (each store counts its own loads). */
    static LuaScript bucketScript() {
        return LuaScript.resource(RedisTokenBucketStore.class, "bucket.lua");
    }


    static final double MAX_PER_SECOND = 1e6;
    static final double MAX_CAPACITY = 1e9;
    private static final double MICROS = 1e6;

    private final ScriptCalls calls;
    private final String[] keys;
    private final String minTtlMillis;
    private final int processCount;
    private final Object lock = new Object();
    /** This process's configuration; {@code +∞} until the pacer knows a limit. */
    private volatile double perSecond = Double.POSITIVE_INFINITY;
    private volatile double capacity = Double.POSITIVE_INFINITY;
    /** The rate and capacity Redis last reported using (0: none known there). */
    private volatile long learnedMicroRate;
    private volatile long learnedMicroCapacity;
    private TokenBucketStore local; // guarded by lock; made at the first reading of the caller's clock
    private double localPerSecond = Double.POSITIVE_INFINITY; // guarded by lock

    /**
     * A store of the limit named {@code limitName} (e.g. the provider's host and the API key's id: every
     * process that shares that limit uses the same name) over {@code endpoint}, which the caller owns
     * and may share with other stores.
     *
     * @throws IllegalArgumentException if {@code limitName} is empty
     * @throws NullPointerException if an argument is {@code null}
     */
    public RedisTokenBucketStore(RedisEndpoint endpoint, String limitName, SharedLimitsConfig config) {
        this(endpoint, SharedKeys.of(config.keyPrefix(), limitName), config, bucketScript(), limitName, true);
    }

    RedisTokenBucketStore(RedisEndpoint endpoint, SharedKeys keys, SharedLimitsConfig config, LuaScript script,
            String limitName, boolean preload) {
        Objects.requireNonNull(endpoint, "endpoint");
        HashTags.requireUsablePrefix("keyPrefix", config.keyPrefix(), endpoint);
        this.calls = new ScriptCalls(endpoint, script, config, "shared pacer bucket \"" + limitName + "\"", preload);
        this.keys = new String[] {keys.bucket()};
        this.minTtlMillis = Long.toString(config.minKeyTtl().toMillis());
        this.processCount = config.processCount();
    }

    /**
     * One round trip to Redis, waiting at most the decision timeout; then the local bucket at
     * {@code rate/N} answers.
     *
     * @return 0 when taken; otherwise the nanoseconds until they could be (whole microseconds)
     * @throws IllegalArgumentException if {@code cost <= 0} or it exceeds the capacity (this process's,
     *     or the one stored in Redis when this process knows none): R14
     */
    @Override
    public long tryAcquire(double cost, long nowNanos) {
        if (!(cost > 0)) {
            throw new IllegalArgumentException("cost must be > 0: " + cost);
        }
        double cap = capacity();
        if (cost > cap) {
            throw exceeds(cost, cap);
        }
        List<Object> reply = calls.call(keys, args("A", nowNanos, Math.round(cost * MICROS)));
        if (reply != null) {
            long waitMicros = read(reply, nowNanos);
            if (waitMicros < 0) {
                throw exceeds(cost, capacity());
            }
            if (waitMicros == 0) {
                return 0;
            }
            return waitMicros >= Long.MAX_VALUE / 1_000L ? Long.MAX_VALUE : Math.max(1, waitMicros * 1_000L);
        }
        calls.answeredLocally();
        return localAcquire(cost, nowNanos);
    }

    private long localAcquire(double cost, long nowNanos) {
        TokenBucketStore b = local(nowNanos);
        if (cost > b.capacity()) {
            // more than this process's share can ever hold: wait while the share earns it (Redis may be
            // back by then) instead of failing a call the shared bucket could grant
            double rate;
            synchronized (lock) {
                rate = localPerSecond;
            }
            double nanos = Math.ceil(cost / rate * 1e9);
            return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(1, (long) nanos);
        }
        return b.tryAcquire(cost, nowNanos);
    }

    /**
     * Local: the next script call carries the new values (and Redis applies "tokens above the new
     * capacity are dropped" then). Values above the supported range are clamped to it.
     *
     * @throws IllegalArgumentException for a rate {@code <= 0} or a capacity {@code < 1} (R14b)
     */
    @Override
    public void configure(double perSecond, double capacity, long nowNanos) {
        if (!(perSecond > 0)) {
            throw new IllegalArgumentException("perSecond must be > 0: " + perSecond);
        }
        if (!(capacity >= 1)) {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
        synchronized (lock) {
            this.perSecond = perSecond;
            this.capacity = capacity;
            configureLocal(nowNanos);
        }
    }

    /** Sent to Redis without waiting; the local share is clamped to {@code maxTokens/N}. */
    @Override
    public void clamp(double maxTokens, long nowNanos) {
        if (Double.isNaN(maxTokens) || maxTokens == Double.POSITIVE_INFINITY) {
            return;
        }
        double max = Math.max(0.0, maxTokens);
        local(nowNanos).clamp(max / processCount, nowNanos);
        calls.sendAndForget(keys, args("C", nowNanos, (long) Math.floor(Math.min(max, MAX_CAPACITY) * MICROS)));
    }

    /**
     * The pause lives in Redis (server time {@code now + (untilNanos − nowNanos)}, rounded up
     * to a microsecond), so every process sharing the bucket waits it out; sent without waiting. The local
     * bucket is paused too.
     */
    @Override
    public void drainAndPause(long untilNanos, long nowNanos) {
        local(nowNanos).drainAndPause(untilNanos, nowNanos);
        long forNanos = untilNanos - nowNanos;
        long pauseMicros = forNanos > 0 ? Math.ceilDiv(forNanos, 1_000L) : 0;
        calls.sendAndForget(keys, args("P", nowNanos, pauseMicros));
    }

    /** A round trip (the local share's tokens when Redis does not answer). */
    @Override
    public double available(long nowNanos) {
        List<Object> reply = calls.call(keys, args("V", nowNanos, 0));
        if (reply != null) {
            read(reply, nowNanos);
            long tok = ScriptCalls.longAt(reply, 1);
            return tok < 0 ? Double.POSITIVE_INFINITY : tok / MICROS;
        }
        calls.answeredLocally();
        return local(nowNanos).available(nowNanos);
    }

    /** This process's capacity; if it knows none, the one last seen in Redis; else {@code +∞}. */
    @Override
    public double capacity() {
        double c = capacity;
        if (!Double.isInfinite(c)) {
            return c;
        }
        long learned = learnedMicroCapacity;
        return learned > 0 ? learned / MICROS : Double.POSITIVE_INFINITY;
    }

    /** Counters since the store was made. */
    public SharedLimitsStats stats() {
        return calls.stats();
    }

    /** Whether the last synchronous operation was answered by Redis (false: by the local share). */
    public boolean onRedis() {
        return calls.onRedis();
    }

    /** The local fallback's tokens now, for tests and metrics. */
    public double localAvailable(long nowNanos) {
        return local(nowNanos).available(nowNanos);
    }

    // --------------------------------------------------------------------------------- helpers

    /** Reads a reply: learns the shared rate, mirrors a shared pause locally; returns the wait in µs. */
    private long read(List<Object> reply, long nowNanos) {
        long wait = ScriptCalls.longAt(reply, 0);
        long pauseLeftMicros = ScriptCalls.longAt(reply, 2);
        long rate = ScriptCalls.longAt(reply, 3);
        long cap = ScriptCalls.longAt(reply, 4);
        if (rate > 0 && cap > 0 && (rate != learnedMicroRate || cap != learnedMicroCapacity)) {
            synchronized (lock) {
                learnedMicroRate = rate;
                learnedMicroCapacity = cap;
                configureLocal(nowNanos);
            }
        }
        if (pauseLeftMicros > 0) {
            local(nowNanos).drainAndPause(nowNanos + Math.min(pauseLeftMicros, Long.MAX_VALUE / 4_000L) * 1_000L,
                    nowNanos);
        }
        return wait;
    }

    private String[] args(String op, long nowNanos, long x) {
        double rate = perSecond;
        double cap = capacity;
        String rateArg = "0";
        String capArg = "0";
        if (!Double.isInfinite(rate)) {
            rateArg = Long.toString(Math.max(1, Math.round(Math.min(rate, MAX_PER_SECOND) * MICROS)));
            capArg = Long.toString(Math.max(1, Math.round(Math.min(cap, MAX_CAPACITY) * MICROS)));
        }
        return new String[] {op, calls.nowArg(nowNanos), minTtlMillis, rateArg, capArg, Long.toString(x)};
    }

    private TokenBucketStore local(long nowNanos) {
        synchronized (lock) {
            if (local == null) {
                local = TokenBucketStore.inMemory(nowNanos);
                configureLocal(nowNanos);
            }
            return local;
        }
    }

    /** The local share follows this process's limit, or the shared one when it knows none. Under lock. */
    private void configureLocal(long nowNanos) {
        if (local == null) {
            return; // made at the first reading, configured then
        }
        double rate = perSecond;
        double cap = capacity;
        if (Double.isInfinite(rate) && learnedMicroRate > 0) {
            rate = learnedMicroRate / MICROS;
            cap = learnedMicroCapacity / MICROS;
        }
        if (Double.isInfinite(rate)) {
            localPerSecond = Double.POSITIVE_INFINITY;
            local.configure(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, nowNanos);
        } else {
            localPerSecond = rate / processCount;
            local.configure(localPerSecond, Math.max(1.0, cap / processCount), nowNanos);
        }
    }

    private static IllegalArgumentException exceeds(double cost, double capacity) {
        return new IllegalArgumentException("cost " + cost + " exceeds the bucket capacity " + capacity
                + ": it could never be granted");
    }
}
