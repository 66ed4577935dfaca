package dev.sluice.redis.client;

import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.internal.BoundedScriptCall;
import dev.sluice.redis.internal.LuaScript;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SDK store's calls of its script through the shared {@link RedisEndpoint} ({@link BoundedScriptCall}:
 * a bounded wait and the endpoint's up/down accounting), waited for on the caller's thread, plus the
 * clock argument and the counting and rate-limited logging of answers made without Redis. Thread-safe.
 */
final class ScriptCalls {

    private static final Logger LOG = LoggerFactory.getLogger(ScriptCalls.class);
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;
    /** The caller-clock mode's epoch: a whole second, so its slots line up with a fresh in-memory window's. */
    private static final long CALLER_CLOCK_BASE_MICROS = 1_700_000_000_000_000L;

    private final RedisEndpoint endpoint;
    private final BoundedScriptCall calls;
    private final SharedLimitsConfig config;
    private final String what;
    private final LongAdder localAnswers = new LongAdder();
    private final LongAdder unsentWrites = new LongAdder();
    private final AtomicLong fallbackPeriods = new AtomicLong();
    private final AtomicBoolean onRedis = new AtomicBoolean(true);
    private final AtomicLong lastLogNanos;
    private final AtomicLong unlogged = new AtomicLong();
    private volatile String lastCause = "";
    private final AtomicBoolean clockStarted = new AtomicBoolean();
    private volatile long clockOriginNanos;

    /** {@code preload}: load the script as soon as Redis is up (a test of the NOSCRIPT path passes false). */
    ScriptCalls(RedisEndpoint endpoint, LuaScript script, SharedLimitsConfig config, String what, boolean preload) {
        this.endpoint = endpoint;
        this.calls = new BoundedScriptCall(endpoint, script, config.decisionTimeout(), what);
        this.config = config;
        this.what = what;
        this.lastLogNanos = new AtomicLong(config.localTime().nanoTime() - LOG_EVERY_NANOS);
        if (preload) {
            calls.preloadWhenUp();
        }
    }

    /**
     * The script's {@code now} argument: {@code ""} (the server's {@code TIME}) in production; in
     * caller-clock mode the caller's reading in µs since its first one, on a fixed epoch.
     */
    String nowArg(long nowNanos) {
        if (!config.callerClock()) {
            return "";
        }
        if (clockStarted.compareAndSet(false, true)) {
            clockOriginNanos = nowNanos;
        }
        return Long.toString(CALLER_CLOCK_BASE_MICROS + Math.floorDiv(nowNanos - clockOriginNanos, 1_000L));
    }

    /**
     * Runs the script and waits at most the decision timeout.
     *
     * @return its reply, or {@code null} when Redis is down, slow or failing: the caller answers
     *     locally and says so with {@link #answeredLocally()}
     */
    List<Object> call(String[] keys, String[] args) {
        try {
            CompletableFuture<List<Object>> sent = send(keys, args);
            endpoint.flushScriptsNow(); // waited for on this thread: an event loop would never flush it
            List<Object> reply = sent.get();
            if (reply == null || reply == NOT_SENT) {
                return null;
            }
            backOnRedis();
            return reply;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a script call's failure handler threw", e.getCause()); // it does not
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            lastCause = "interrupted";
            return null;
        }
    }

    /**
     * Sends the script without waiting for it (an update whose answer nobody needs now: the next
     * call on the same connection runs after it).
     *
     * @return whether it was sent (false: Redis is down; the caller applied it locally only)
     */
    boolean sendAndForget(String[] keys, String[] args) {
        CompletableFuture<List<Object>> f = send(keys, args);
        if (f.isDone() && f.getNow(NOT_SENT) == NOT_SENT) {
            unsentWrites.increment();
            return false;
        }
        return true;
    }

    /** Completes with the reply, {@code null} after a failure, or {@link #NOT_SENT} (at once). */
    private CompletableFuture<List<Object>> send(String[] keys, String[] args) {
        return calls.call(keys, args, false, reply -> reply, late -> {}, failure -> {
            lastCause = failure.reason();
            return failure.kind() == BoundedScriptCall.Kind.NOT_SENT ? NOT_SENT : null;
        });
    }

    /** The answer of a call that sent nothing; compared by identity. */
    private static final List<Object> NOT_SENT = java.util.Collections.unmodifiableList(new java.util.ArrayList<>());

    /** An answer made without Redis: counted, and logged when it starts a fallback period and every 10 s. */
    void answeredLocally() {
        localAnswers.increment();
        long now = config.localTime().nanoTime();
        if (onRedis.compareAndSet(true, false)) {
            fallbackPeriods.incrementAndGet();
            lastLogNanos.set(now); // the next summary line comes 10 s after this one
            LOG.warn("{}: redis unreachable ({}); answering locally at 1/{} of the shared limit until it answers",
                    what, lastCause, config.processCount());
            return;
        }
        unlogged.incrementAndGet();
        long last = lastLogNanos.get();
        if (now - last >= LOG_EVERY_NANOS && lastLogNanos.compareAndSet(last, now)) {
            LOG.warn("{}: {} answer(s) made locally since the last such line (latest cause: {})", what,
                    unlogged.getAndSet(0), lastCause);
        }
    }

    private void backOnRedis() {
        if (onRedis.compareAndSet(false, true)) {
            LOG.info("{}: back on redis ({} local answers so far)", what, localAnswers.sum());
        }
    }

    /** Whether the last synchronous operation was answered by Redis. */
    boolean onRedis() {
        return onRedis.get();
    }

    SharedLimitsStats stats() {
        return new SharedLimitsStats(calls.sent(), localAnswers.sum(), unsentWrites.sum(), calls.timeouts(),
                calls.errors(), fallbackPeriods.get(), calls.script().loads());
    }

    static long longAt(List<Object> reply, int i) {
        return (Long) reply.get(i);
    }
}
