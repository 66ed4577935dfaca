package dev.sluice.redis.internal;

import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisUrl;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One store's calls of its {@link LuaScript} through the shared {@link RedisEndpoint}, each with a
 * bounded wait (SPEC §3.14): the script is sent on the endpoint's script connection (or not, while
 * the endpoint is down) and flushed in a batch ({@link RedisEndpoint#flushScripts()}); its timeout is
 * the configured one plus an allowance for the calls already in flight ahead of it (Redis answers them
 * first), checked by a sweep on the endpoint's timer; every outcome is reported to the endpoint's up/down accounting
 * ({@link RedisEndpoint#recordSuccess()}, {@link RedisEndpoint#recordFailure(Throwable)} for
 * {@linkplain RedisFailures#isAvailabilityFailure availability failures} and timeouts), and exactly one
 * of the caller's {@code onReply} and {@code onFailure} answers the call. A reply that arrives after
 * {@code onFailure} answered (a timeout) goes to {@code onLateReply}, so the store can undo what the
 * script did. A script error that is not an outage (a bug: the script or its arguments) is logged with
 * its stack trace. Internal to {@code sluice-redis}. Thread-safe.
 */
public final class BoundedScriptCall {

    private static final Logger LOG = LoggerFactory.getLogger(BoundedScriptCall.class);

    /** Why a call was answered without a reply. */
    public enum Kind {
        /** Nothing was sent: the endpoint is marked down, has no connection yet, or refused the command. */
        NOT_SENT,
        /** No reply within the timeout; the script may still run (its reply then goes to {@code onLateReply}). */
        TIMEOUT,
        /** Redis or the connection cannot serve now ({@link RedisFailures#isAvailabilityFailure}). */
        UNAVAILABLE,
        /** Redis answered with an error that is not an outage (logged). */
        ERROR,
        /** Redis replied and {@code onReply} threw: a reply the store cannot read, or the caller's bug. */
        UNREADABLE
    }

    /**
     * A call answered without a (usable) reply.
     *
     * @param kind why
     * @param reason one line for logs and fallback causes, e.g. {@code "redis: no reply in 50 ms"}
     * @param cause the exception, or {@code null} for {@link Kind#NOT_SENT} by a down endpoint and for
     *     {@link Kind#TIMEOUT}
     */
    public record Failure(Kind kind, String reason, Throwable cause) {
        /** Whether Redis cannot serve now (everything but {@link Kind#ERROR} and {@link Kind#UNREADABLE}). */
        public boolean isAvailability() {
            return kind != Kind.ERROR && kind != Kind.UNREADABLE;
        }
    }

    private final RedisEndpoint endpoint;
    private final LuaScript script;
    private final long timeoutNanos;
    private final String timeoutReason;
    private final String what;
    private final LongAdder sent = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final ConcurrentLinkedQueue<Pending<?>> watched = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean sweepScheduled = new AtomicBoolean();
    private final long sweepEveryNanos;
    private final long maxAllowanceNanos;
    private final Runnable flush;
    private final AtomicLong lastErrorLogNanos = new AtomicLong(System.nanoTime() - ERROR_LOG_EVERY_NANOS);
    private final AtomicLong unloggedErrors = new AtomicLong();

    /** The least time between two log lines about error replies of one store. */
    private static final long ERROR_LOG_EVERY_NANOS = 10_000_000_000L;

    /**
     * @param what the store, as log lines name it (e.g. {@code "redis limiter"})
     * @throws IllegalArgumentException if {@code timeout} is not positive
     */
    public BoundedScriptCall(RedisEndpoint endpoint, LuaScript script, Duration timeout, String what) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.script = Objects.requireNonNull(script, "script");
        this.what = Objects.requireNonNull(what, "what");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout: must be > 0, was " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
        this.timeoutReason = "redis: no reply in " + timeout.toMillis() + " ms";
        this.sweepEveryNanos = Math.clamp(timeoutNanos / 10, 100_000L, 5_000_000L);
        this.maxAllowanceNanos = timeoutNanos > Long.MAX_VALUE / 40 ? Long.MAX_VALUE / 4 : timeoutNanos * 10;
        this.flush = endpoint::flushScripts;
    }

    /** The script. */
    public LuaScript script() {
        return script;
    }

    /**
     * Loads the script as soon as the endpoint is up, so the first call does not pay for
     * {@code NOSCRIPT} and a load; a failure only means that call loads it.
     */
    public CompletableFuture<?> preloadWhenUp() {
        return endpoint.whenUp().toCompletableFuture().thenCompose(up -> {
            RedisClusterAsyncCommands<String, String> commands = endpoint.commandsAnyway();
            return commands == null ? CompletableFuture.completedFuture(null) : script.preload(commands);
        });
    }

    /**
     * Runs the script with a bounded wait.
     *
     * @param evenIfDown send even while the endpoint is marked down (a late reply just proved Redis answers)
     * @param onReply answers from the reply; if it throws, {@code onFailure} answers with {@link Kind#UNREADABLE}
     * @param onLateReply gets a reply that arrived after {@code onFailure} answered (its exceptions are logged)
     * @param onFailure answers without a reply; if it throws, the returned stage completes exceptionally with that
     * @return completes with the answer, on Lettuce's I/O thread (a reply), the endpoint's timer (a timeout)
     *     or the caller's thread (nothing sent)
     */
    public <T> CompletableFuture<T> call(String[] keys, String[] args, boolean evenIfDown,
            Function<List<Object>, T> onReply, Consumer<List<Object>> onLateReply, Function<Failure, T> onFailure) {
        CompletableFuture<T> result = new CompletableFuture<>();
        RedisClusterAsyncCommands<String, String> commands =
                evenIfDown ? endpoint.scriptCommandsAnyway() : endpoint.scriptCommandsIfUp();
        if (commands == null) {
            answer(result, onFailure, new Failure(Kind.NOT_SENT, "redis down", null));
            return result;
        }
        if (keys.length > 1 && endpoint.topology() == RedisUrl.Topology.CLUSTER) {
            String spread = slotSpread(keys);
            if (spread != null) {
                errors.increment();
                IllegalArgumentException e = new IllegalArgumentException(spread);
                logError(e);
                answer(result, onFailure, new Failure(Kind.ERROR, "redis: " + spread, e));
                return result;
            }
        }
        Pending<T> pending = new Pending<>(this, result, onFailure);
        CompletableFuture<List<Object>> reply;
        try {
            reply = script.run(commands, keys, args, flush);
        } catch (RuntimeException e) {
            endpoint.recordFailure(e);
            errors.increment();
            answer(result, onFailure, new Failure(Kind.NOT_SENT, "redis: " + RedisFailures.describe(e), e));
            return result;
        }
        sent.increment();
        int ahead = inFlight.getAndIncrement();
        pending.deadline = System.nanoTime() + timeoutNanos + Math.min(ahead * QUEUED_ALLOWANCE_NANOS, maxAllowanceNanos);
        // a reply may already have come (and decremented): the allowance only ever over-counts by those
        watch(pending);
        reply.whenComplete((raw, e) -> {
            inFlight.decrementAndGet();
            if (e == null) {
                endpoint.recordSuccess();
                onReply(raw, pending, result, onReply, onLateReply, onFailure);
                return;
            }
            Throwable cause = LuaScript.unwrap(e);
            errors.increment();
            boolean availability = RedisFailures.isAvailabilityFailure(cause);
            if (availability) {
                endpoint.recordFailure(cause);
            } else {
                endpoint.recordError(cause);
                logError(cause);
            }
            if (pending.compareAndSet(false, true)) {
                answer(result, onFailure, new Failure(availability ? Kind.UNAVAILABLE : Kind.ERROR,
                        "redis: " + RedisFailures.describe(cause), cause));
            }
        });
        return result;
    }

    // ------------------------------------------------------------------------------ timeouts

    /**
     * The extra wait a call gets for each call of this store already in flight when it is sent: Redis
     * runs scripts one at a time, so a call queued behind 255 others waits for them without Redis being
     * slow. 50 µs each (several times a script's run time), at most {@code 10 × timeout} in all.
     */
    static final long QUEUED_ALLOWANCE_NANOS = 50_000;

    /**
     * One call awaiting its reply; answered once (the flag), by the reply or by the sweep. Calls are
     * watched in the order they are sent, which is about the order of their deadlines.
     */
    private static final class Pending<T> extends AtomicBoolean {
        final BoundedScriptCall owner;
        final CompletableFuture<T> result;
        final Function<Failure, T> onFailure;
        long deadline; // written before the call is watched, read by the sweep after taking it from the queue

        Pending(BoundedScriptCall owner, CompletableFuture<T> result, Function<Failure, T> onFailure) {
            this.owner = owner;
            this.result = result;
            this.onFailure = onFailure;
        }

        void expire() {
            if (compareAndSet(false, true)) {
                owner.timeouts.increment();
                owner.endpoint.recordFailure(new TimeoutException(owner.timeoutReason));
                answer(result, onFailure, new Failure(Kind.TIMEOUT, owner.timeoutReason, null));
            }
        }
    }

    private void watch(Pending<?> pending) {
        watched.add(pending);
        if (!sweepScheduled.get() && sweepScheduled.compareAndSet(false, true)) {
            scheduleSweep();
        }
    }

    private void scheduleSweep() {
        try {
            endpoint.timer().schedule(this::sweep, sweepEveryNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            sweepScheduled.set(false); // closing: replies and their failures still answer
        }
    }

    /**
     * Answers every watched call past its deadline (on the endpoint's timer, every
     * {@code timeout / 10}, between 100 µs and 5 ms, while calls are in flight) and forgets the
     * answered ones; a call sent later with an earlier deadline waits for the one ahead of it, at most
     * the difference of their queue allowances.
     */
    private void sweep() {
        long now = System.nanoTime();
        for (Pending<?> p; (p = watched.peek()) != null; ) {
            if (p.get()) {
                watched.poll();
            } else if (now - p.deadline >= 0) {
                watched.poll();
                p.expire();
            } else {
                break;
            }
        }
        if (!watched.isEmpty()) {
            scheduleSweep();
            return;
        }
        sweepScheduled.set(false);
        if (!watched.isEmpty() && sweepScheduled.compareAndSet(false, true)) {
            scheduleSweep(); // a call was watched while this sweep was ending
        }
    }

    private <T> void onReply(List<Object> raw, AtomicBoolean answered, CompletableFuture<T> result,
            Function<List<Object>, T> onReply, Consumer<List<Object>> onLateReply, Function<Failure, T> onFailure) {
        if (!answered.compareAndSet(false, true)) {
            try {
                onLateReply.accept(raw);
            } catch (RuntimeException bad) {
                logError(bad);
            }
            return;
        }
        T value;
        try {
            value = onReply.apply(raw);
        } catch (RuntimeException bad) {
            errors.increment();
            logError(bad);
            answer(result, onFailure, new Failure(Kind.UNREADABLE, "redis: " + RedisFailures.describe(bad), bad));
            return;
        }
        result.complete(value);
    }

    private static <T> void answer(CompletableFuture<T> result, Function<Failure, T> onFailure, Failure failure) {
        try {
            result.complete(onFailure.apply(failure));
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    /**
     * {@code null} when every key is in the slot of the first, else one line naming two keys' slots.
     */
    static String slotSpread(String[] keys) {
        int slot = SlotHash.getSlot(keys[0]);
        for (int i = 1; i < keys.length; i++) {
            int other = SlotHash.getSlot(keys[i]);
            if (other != slot) {
                return "CROSSSLOT (not sent): the call's keys are in cluster slots " + slot + " and " + other;
            }
        }
        return null;
    }

    /**
     * One WARN line for an error reply (or a reply this store could not read), at most every 10 s, with the
     * number of such answers since the last line; no stack trace, except at DEBUG.
     */
    private void logError(Throwable cause) {
        unloggedErrors.incrementAndGet();
        long now = System.nanoTime();
        long last = lastErrorLogNanos.get();
        if (now - last < ERROR_LOG_EVERY_NANOS || !lastErrorLogNanos.compareAndSet(last, now)) {
            return;
        }
        long count = unloggedErrors.getAndSet(0);
        String hint = RedisFailures.topologyHint(cause);
        LOG.warn("{}: redis answered {} call(s) with an error since the last such line, answering them without it "
                        + "(latest: {}{})",
                what, count, RedisFailures.describe(cause), hint == null ? "" : "; " + hint);
        LOG.debug("{}: the latest error", what, cause);
    }

    /** Calls sent to Redis. */
    public long sent() {
        return sent.sum();
    }

    /** Calls not answered within the timeout. */
    public long timeouts() {
        return timeouts.sum();
    }

    /** Calls that failed to send, were answered with an error, or whose reply could not be read. */
    public long errors() {
        return errors.sum();
    }
}
