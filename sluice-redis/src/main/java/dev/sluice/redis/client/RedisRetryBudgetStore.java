package dev.sluice.redis.client;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.internal.LuaScript;
import java.util.List;
import java.util.Objects;

/**
 * The SDK's retry budget kept in Redis (SPEC §4.2, §4.8): N processes sharing one provider limit keep
 * their retries together under {@code max(minRetries, ratio × requests)} over the sliding window of
 * {@link SharedLimitsConfig#budget()}, and under its spread window's rule when that is on (the rule
 * {@link RetryBudgetConfig} gives, counted in 100 ms slots as the in-memory budget counts it), so that
 * N processes do not retry N times as much. Plug it in
 * with {@code SluiceHttpClient.builder().retryBudgetStore(...)}.
 *
 * <p><b>One script call per operation</b> ({@code budget.lua}), on the server's {@code TIME}. The hash
 * {@code <prefix>{<limit>}:budget} holds a ring of one-second slots per counter (constant memory) and
 * expires a window and a slot after its last write (R16).
 *
 * <ul>
 *   <li>{@link #recordRequest} is sent without waiting.</li>
 *   <li>{@link #tryAcquireRetry} is one synchronous round trip, at most the decision timeout.</li>
 * </ul>
 *
 * <p><b>When Redis does not answer</b>, a local budget decides: the same ratio over this process's own
 * requests (it counts every request, whether Redis is up or not), with the floor
 * {@code ceil(minRetries/N)}. It does not know the retries Redis granted this process, so at the start
 * of an outage it may grant up to its ratio of the last window's own requests. Counted and logged like
 * the bucket's fallback; back on Redis by itself.
 *
 * <p>Thread-safe.
 */
public final class RedisRetryBudgetStore implements RetryBudgetStore {

    /** A fresh instance of {@code budget.lua} (each store counts its own loads). */
    static LuaScript budgetScript() {
        return LuaScript.resource(RedisRetryBudgetStore.class, "budget.lua");
    }


    private final ScriptCalls calls;
    private final String[] keys;
    private final String slotMicros;
    private final String slots;
    private final String ratio;
    private final String minRetries;
    private final String ttlMillis;
    private final String spreadSlotMicros;
    private final String spreadSlots;
    private final String spreadFloor;
    private final RetryBudgetStore local;

    /**
     * A budget of the limit named {@code limitName} (the same name as the processes' shared bucket) over
     * {@code endpoint}, which the caller owns and may share.
     *
     * @throws IllegalArgumentException if {@code limitName} is empty
     * @throws NullPointerException if an argument is {@code null}
     */
    public RedisRetryBudgetStore(RedisEndpoint endpoint, String limitName, SharedLimitsConfig config) {
        this(endpoint, SharedKeys.of(config.keyPrefix(), limitName), config, budgetScript(), limitName, true);
    }

    RedisRetryBudgetStore(RedisEndpoint endpoint, SharedKeys keys, SharedLimitsConfig config, LuaScript script,
            String limitName, boolean preload) {
        Objects.requireNonNull(endpoint, "endpoint");
        RetryBudgetConfig b = config.budget();
        HashTags.requireUsablePrefix("keyPrefix", config.keyPrefix(), endpoint);
        this.calls = new ScriptCalls(endpoint, script, config, "shared retry budget \"" + limitName + "\"", preload);
        this.keys = new String[] {keys.budget()};
        long windowSeconds = Math.max(1, b.window().toSeconds()); // one-second slots, as the in-memory budget
        this.slotMicros = "1000000";
        this.slots = Long.toString(windowSeconds);
        this.ratio = Double.toString(b.ratio()); // the shortest decimal that parses back to the same double
        this.minRetries = Integer.toString(b.minRetries());
        this.ttlMillis = Long.toString((windowSeconds + 2) * 1_000L);
        // the spread window in 100 ms slots, as the in-memory budget counts it
        long spreadSlotCount = b.spreads() ? Math.max(1, b.spreadWindow().toMillis() / SPREAD_SLOT_MILLIS) : 0;
        this.spreadSlotMicros = b.spreads() ? Long.toString(SPREAD_SLOT_MILLIS * 1_000L) : "0";
        this.spreadSlots = Long.toString(spreadSlotCount);
        this.spreadFloor = Double.toString(b.spreadFloor());
        int n = config.processCount();
        this.local = RetryBudgetStore.inMemory(new RetryBudgetConfig(b.ratio(), b.window(),
                (b.minRetries() + n - 1) / n, b.spreadWindow()));
    }

    /** Sent to Redis without waiting; also counted locally, for the fallback. */
    @Override
    public void recordRequest(long nowNanos) {
        local.recordRequest(nowNanos);
        calls.sendAndForget(keys, args("R", nowNanos));
    }

    /** One round trip; the local budget answers when Redis does not within the timeout. */
    @Override
    public boolean tryAcquireRetry(long nowNanos) {
        List<Object> reply = calls.call(keys, args("T", nowNanos));
        if (reply != null) {
            return ScriptCalls.longAt(reply, 0) == 1L;
        }
        calls.answeredLocally();
        return local.tryAcquireRetry(nowNanos);
    }

    /**
     * The shared window now, for tests and metrics.
     *
     * @return {@code {requests, retries}} in the window, or {@code null} when Redis did not answer
     */
    public long[] window(long nowNanos) {
        List<Object> reply = calls.call(keys, args("V", nowNanos));
        return reply == null ? null : new long[] {ScriptCalls.longAt(reply, 1), ScriptCalls.longAt(reply, 2)};
    }

    /** Counters since the store was made. */
    public SharedLimitsStats stats() {
        return calls.stats();
    }

    private String[] args(String op, long nowNanos) {
        return new String[] {op, calls.nowArg(nowNanos), slotMicros, slots, ratio, minRetries, ttlMillis,
                spreadSlotMicros, spreadSlots, spreadFloor};
    }

    /** The spread window's slot, as {@code InMemoryRetryBudget} counts it. */
    private static final long SPREAD_SLOT_MILLIS = 100;
}
