package dev.sluice.edge.shedding;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.Deadlines;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.ExchangeListener;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.route.Criticality;
import dev.sluice.time.TimeSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Criticality shedding (SPEC §3.9), a stage before the limiter so a shed request is charged to no
 * policy. It counts the requests it let through that have not ended (upstream requests in flight,
 * including those waiting for a pooled connection) against a concurrency limit {@code L}: static from
 * configuration, or adaptive (Netflix concurrency-limits' {@code Gradient2Limit}, fed with each
 * request's time from admission to the upstream's response head, so queueing delay in front of or
 * inside the upstream lowers {@code L}).
 *
 * <p>Each criticality may fill in-flight up to its own ceiling; with the reserved share {@code r}
 * (default 20 %), each level below {@code CRITICAL_PLUS} gives up another half of {@code r}:
 * <pre>
 *   CRITICAL_PLUS   L
 *   CRITICAL        L · (1 − r/2)
 *   SHEDDABLE_PLUS  L · (1 − r)        (CRITICAL* alone may use the top r · L)
 *   SHEDDABLE       L · (1 − 3r/2)
 * </pre>
 * (rounded down; {@code CRITICAL} at least 1, so a tiny limit still serves the default criticality)
 * so as in-flight rises, {@code SHEDDABLE} is shed first, then {@code SHEDDABLE_PLUS}, then
 * {@code CRITICAL}, and {@code CRITICAL_PLUS} last. A shed request gets 503 {@code overloaded} with
 * {@code Retry-After} and outcome {@link DecisionOutcome#SHED}. A request whose deadline (the client's
 * {@code Request-Timeout} or the route's {@code timeout}) passed before it got here is dropped the same
 * way with outcome {@link DecisionOutcome#DEADLINE_EXCEEDED}.
 *
 * <p><b>Per-key fair share.</b> The ceilings bound criticalities, not tenants: one key's CRITICAL
 * calls could fill the whole CRITICAL share and shut every other tenant's CRITICAL route out. So the
 * lower half of each ceiling is first come, first served, and the upper half is shared: once in-flight
 * is at half the ceiling or more, a key already holding {@code ceil(ceiling / activeKeys)} requests is
 * shed (outcome {@code shed}, the same 503). {@code activeKeys} counts the keys (anonymous callers: per
 * address) with a request in flight or one seen within {@code fair-share-window} (5 s); a key alone may
 * use its whole ceiling (a key that arrives later gets its share as the first key's requests end), two
 * active keys each keep at least half of it. The per-key counts are checked
 * before the shared count is reserved, so concurrent admissions of one key may pass its share by at most
 * one per event loop.
 *
 * <p>Thread-safe: the in-flight count is one atomic integer, reserved with compare-and-set so that
 * concurrent admissions never pass a ceiling; the per-key counts live in a concurrent map swept of
 * idle keys every half window.
 */
public final class CriticalityShedder implements EdgeStage {

    private final SheddingConfig config;
    private final TimeSource time;
    private final Supplier<Problems> problems;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Limit adaptive;
    /** per key: requests in flight and when it was last seen; empty when the fair share is off */
    private final ConcurrentHashMap<String, KeyShare> keys = new ConcurrentHashMap<>();
    private final long fairWindowNanos;
    private final AtomicLong nextSweepNanos = new AtomicLong();

    private static final class KeyShare {
        final AtomicInteger inFlight = new AtomicInteger();
        volatile long lastSeenNanos;
    }

    /**
     * @param problems the problem writer in force (it changes on reload)
     */
    public CriticalityShedder(SheddingConfig config, TimeSource time, Supplier<Problems> problems) {
        this.config = config;
        this.time = time;
        this.problems = problems;
        this.adaptive = config.mode() == SheddingConfig.Mode.ADAPTIVE
                ? Gradient2Limit.newBuilder().initialLimit(config.initialLimit()).minLimit(config.minLimit())
                        .maxConcurrency(config.maxLimit()).build()
                : null;
        this.fairWindowNanos = config.fairShareWindow().toNanos();
    }

    /** The keys the fair share counts as active now (in flight, or seen within the window). */
    public int activeKeys() {
        return keys.size();
    }

    /** A key's fair share of {@code ceiling} among {@code activeKeys} (at least 1). */
    static int fairShare(int ceiling, int activeKeys) {
        return Math.max(1, (ceiling + activeKeys - 1) / Math.max(1, activeKeys));
    }

    private KeyShare keyShare(String key, long now) {
        KeyShare s = keys.get(key);
        if (s == null) {
            KeyShare fresh = new KeyShare();
            s = keys.putIfAbsent(key, fresh);
            if (s == null) {
                s = fresh;
            }
        }
        s.lastSeenNanos = now;
        long next = nextSweepNanos.get();
        if (now - next >= 0 && nextSweepNanos.compareAndSet(next, now + fairWindowNanos / 2)) {
            keys.forEach((k, v) -> {
                if (v.inFlight.get() == 0 && now - v.lastSeenNanos > fairWindowNanos) {
                    keys.remove(k, v);
                }
            });
        }
        return s;
    }

    /** The concurrency limit in force now. */
    public int limit() {
        return adaptive != null ? adaptive.getLimit() : config.limit();
    }

    /** Requests let through and not yet ended. */
    public int inFlight() {
        return inFlight.get();
    }

    /** The in-flight ceiling of {@code c} under {@code limit} (see the class comment). */
    public static int ceiling(Criticality c, int limit, int reservedPercent) {
        int steps = switch (c) {
            case CRITICAL_PLUS -> 0;
            case CRITICAL -> 1;
            case SHEDDABLE_PLUS -> 2;
            case SHEDDABLE -> 3;
        };
        // L · (1 − steps · r / 200), rounded down, in integers
        long cut = (long) limit * steps * reservedPercent;
        int ceiling = (int) Math.max(0, limit - (cut + 199) / 200);
        // CRITICAL, the default, is never shut out: below L = 200 / r its half of the reserve rounds to
        // nothing and it may use one slot (SHEDDABLE* stay out of the reserve whatever L is)
        return c == Criticality.CRITICAL && limit >= 1 ? Math.max(1, ceiling) : ceiling;
    }

    @Override
    public CompletionStage<Verdict> apply(EdgeRequest request, Chain chain) {
        if (config.mode() == SheddingConfig.Mode.OFF) {
            return chain.proceed(request);
        }
        long now = time.nanoTime();
        long deadline = Deadlines.deadlineNanos(request);
        if (deadline != Deadlines.NONE && now - deadline >= 0) {
            return answer(request, DecisionOutcome.DEADLINE_EXCEEDED,
                    "The request's deadline passed before the API could take it.");
        }
        int ceiling = ceiling(request.route().criticality(), limit(), config.reservedPercent());
        KeyShare share = fairWindowNanos > 0 ? keyShare(request.caller().limiterKey(), now) : null;
        for (;;) {
            int cur = inFlight.get();
            if (cur >= ceiling) {
                return answer(request, DecisionOutcome.SHED, "The API is short of capacity; "
                        + request.route().criticality().name() + " requests are shed first. Retry with backoff.");
            }
            if (share != null && cur >= ceiling / 2) {
                int fair = fairShare(ceiling, keys.size());
                if (share.inFlight.get() >= fair) {
                    return answer(request, DecisionOutcome.SHED, "The API is short of capacity and this key "
                            + "holds its fair share of it (" + fair + " requests in flight). Retry with backoff.");
                }
            }
            if (inFlight.compareAndSet(cur, cur + 1)) {
                break;
            }
        }
        if (share != null) {
            share.inFlight.incrementAndGet();
        }
        int inFlightAtStart = inFlight.get();
        CompletionStage<Verdict> next;
        try {
            next = chain.proceed(request);
        } catch (RuntimeException e) {
            release(share);
            throw e;
        }
        return next.handle((v, error) -> {
            if (error != null || !(v instanceof Verdict.Forward f)) {
                release(share); // not forwarded: the slot was never used
                if (error != null) {
                    throw error instanceof RuntimeException re ? re : new java.util.concurrent.CompletionException(error);
                }
                return v;
            }
            return f.withListener(new Slot(now, inFlightAtStart, share));
        });
    }

    private void release(KeyShare share) {
        inFlight.decrementAndGet();
        if (share != null) {
            share.inFlight.decrementAndGet();
        }
    }

    private CompletionStage<Verdict> answer(EdgeRequest request, DecisionOutcome outcome, String detail) {
        return CompletableFuture.completedFuture(new Verdict.Answer(
                problems.get().overloaded(config.retryAfter(), detail),
                DecisionRecord.refused(request, outcome)));
    }

    /** Frees the slot when the exchange ends; feeds the adaptive limit with the time to the head. */
    private final class Slot implements ExchangeListener {
        private final long startNanos;
        private final int inFlightAtStart;
        private final KeyShare share;
        private boolean sampled;

        Slot(long startNanos, int inFlightAtStart, KeyShare share) {
            this.startNanos = startNanos;
            this.inFlightAtStart = inFlightAtStart;
            this.share = share;
        }

        @Override
        public void onUpstreamResponse(int status) {
            if (adaptive != null) {
                sampled = true;
                // an upstream 503 is flagged as a drop; Gradient2Limit itself reacts to latency only
                adaptive.onSample(startNanos, time.nanoTime() - startNanos, inFlightAtStart, status == 503);
            }
        }

        @Override
        public void onEnd(boolean completed) {
            release(share);
            if (adaptive != null && !sampled) {
                // no answer (timeout, unreachable, client gone): sampled with all the time it took, so an
                // upstream timing out reads as a slow one and lowers the limit
                adaptive.onSample(startNanos, time.nanoTime() - startNanos, inFlightAtStart, true);
            }
        }
    }
}
