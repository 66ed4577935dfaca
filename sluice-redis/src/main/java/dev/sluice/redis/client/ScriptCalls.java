package dev.sluice.redis.client;

import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.internal.LuaScript;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One store's calls of its script through the shared {@link RedisEndpoint}: a bounded wait, the
 * endpoint's up/down accounting (a timeout or a refused connection counts towards "down"; while down
 * nothing is sent and the endpoint's probe finds Redis again), the clock argument, and the counting
 * and rate-limited logging of answers made without Redis. Thread-safe.
 */
final class ScriptCalls {

    private static final Logger LOG = LoggerFactory.getLogger(ScriptCalls.class);
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;
    /** The caller-clock mode's epoch: a whole second, so its slots line up with a fresh in-memory window's. */
    private static final long CALLER_CLOCK_BASE_MICROS = 1_700_000_000_000_000L;

    private final RedisEndpoint endpoint;
    private final LuaScript script;
    private final SharedLimitsConfig config;
    private final String what;
    private final long timeoutNanos;
    private final LongAdder redisCalls = new LongAdder();
    private final LongAdder localAnswers = new LongAdder();
    private final LongAdder unsentWrites = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder errors = new LongAdder();
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
        this.script = script;
        this.config = config;
        this.what = what;
        this.timeoutNanos = config.decisionTimeout().toNanos();
        this.lastLogNanos = new AtomicLong(config.localTime().nanoTime() - LOG_EVERY_NANOS);
        if (!preload) {
            return;
        }
        endpoint.whenUp().thenRun(() -> {
            RedisClusterAsyncCommands<String, String> c = endpoint.commandsAnyway();
            if (c != null) {
                script.preload(c); // a failure here only means the first call loads it (NOSCRIPT)
            }
        });
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
        CompletableFuture<List<Object>> f = send(keys, args);
        if (f == null) {
            return null;
        }
        try {
            List<Object> reply = f.get(timeoutNanos, TimeUnit.NANOSECONDS);
            backOnRedis();
            return reply;
        } catch (TimeoutException e) {
            lastCause = "no reply in " + config.decisionTimeout().toMillis() + " ms";
            return null; // the timer below counts it
        } catch (ExecutionException e) {
            return null; // counted in send's completion
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
        if (send(keys, args) == null) {
            unsentWrites.increment();
            return false;
        }
        return true;
    }

    private CompletableFuture<List<Object>> send(String[] keys, String[] args) {
        RedisClusterAsyncCommands<String, String> commands = endpoint.commandsIfUp();
        if (commands == null) {
            lastCause = "redis marked down";
            return null;
        }
        CompletableFuture<List<Object>> f;
        try {
            f = script.run(commands, keys, args);
        } catch (RuntimeException e) {
            errors.increment();
            endpoint.recordFailure(e);
            lastCause = describe(e);
            return null;
        }
        redisCalls.increment();
        ScheduledFuture<?> timer;
        try {
            timer = endpoint.timer().schedule(() -> {
                if (!f.isDone()) {
                    timeouts.increment();
                    endpoint.recordFailure(new TimeoutException(
                            "no reply in " + config.decisionTimeout().toMillis() + " ms"));
                }
            }, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            timer = null; // the endpoint is closing
        }
        ScheduledFuture<?> timerRef = timer;
        f.whenComplete((reply, e) -> {
            if (timerRef != null) {
                timerRef.cancel(false);
            }
            if (e == null) {
                endpoint.recordSuccess();
                return;
            }
            Throwable cause = LuaScript.unwrap(e);
            errors.increment();
            lastCause = describe(cause);
            if (isAvailabilityFailure(cause)) {
                endpoint.recordFailure(cause);
            } else {
                LOG.error("{}: script failed (answering locally): {}", what, describe(cause), cause);
            }
        });
        return f;
    }

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
        return new SharedLimitsStats(redisCalls.sum(), localAnswers.sum(), unsentWrites.sum(), timeouts.sum(),
                errors.sum(), fallbackPeriods.get(), script.loads());
    }

    /** Timeouts, refused or dropped connections, and the replies of a server that cannot serve now. */
    private static boolean isAvailabilityFailure(Throwable cause) {
        if (cause instanceof RedisCommandExecutionException ex) {
            String m = ex.getMessage() == null ? "" : ex.getMessage();
            return m.startsWith("BUSY") || m.startsWith("LOADING") || m.startsWith("MASTERDOWN")
                    || m.startsWith("TRYAGAIN") || m.startsWith("CLUSTERDOWN") || m.startsWith("READONLY");
        }
        return !(cause instanceof IllegalStateException || cause instanceof ClassCastException
                || cause instanceof IndexOutOfBoundsException);
    }

    private static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    static long longAt(List<Object> reply, int i) {
        return (Long) reply.get(i);
    }
}
