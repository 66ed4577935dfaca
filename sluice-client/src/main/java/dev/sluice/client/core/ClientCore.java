package dev.sluice.client.core;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.SluiceException;
import dev.sluice.client.internal.core.DefaultClientCore;

/**
 * The transport-free heart of the SDK (DESIGN.md "Seams"): it classifies answers, computes waits,
 * keeps the retry budget, the adaptive throttle, the pacer, the admission queue and per-key
 * attempt caps, and tells its driver what to do. It owns no thread and reads time only from its
 * {@code TimeSource}, so a simulator can drive it on a simulated clock.
 *
 * <p>A driver's loop:
 * <pre>{@code
 * CoreCall<Ctx> call = core.open(spec, ctx);       // may throw: shed, dropped, key cap, cost
 * Dispatch<Ctx> d = core.poll();                   // start d.start(), fail d.failed(),
 *                                                  // poll again at d.wakeAtNanos()
 * // for each started call: send with call.idempotencyKey(); when it completes:
 * Decision decision = core.onAnswer(call, answer); // Return | RetryAfter(wait) | Fail(error)
 * // after every open, answer, cancel or wake-up: poll() again
 * }</pre>
 *
 * <p>Thread-safe: every method takes one internal lock for a short, non-blocking section.
 *
 * @param <A> the driver's per-call data
 */
public interface ClientCore<A> {

    /** A core with {@code config}, reading time, randomness and keys from {@code environment}. */
    static <A> ClientCore<A> create(ClientConfig config, CoreEnvironment environment) {
        return new DefaultClientCore<>(config, environment);
    }

    /**
     * Opens a logical call: mints its Idempotency-Key when needed, checks the key's attempt cap, the
     * cost against the pacer's burst, what the pacer knows for certain (a spent quota, a pause
     * longer than the maximum wait or past the deadline), then the adaptive throttle, and admits it
     * to the queue. The most certain answer comes first (SPEC §4.2, §4.5).
     *
     * @throws SluiceException {@code RetryBudgetExhaustedException} (key cap),
     *     {@code CostExceedsBurstException}, {@code QuotaExceededException} (a spent quota),
     *     {@code RateLimitedException} (a pause past the maximum wait), {@code LocallyThrottledException},
     *     {@code ShedException} / {@code DeadlineExceededException} — the call never reaches the network
     */
    CoreCall<A> open(CallSpec spec, A attachment) throws SluiceException;

    /** Starts what may start now; reports what ended without starting; says when to poll again. */
    Dispatch<A> poll();

    /**
     * Takes the answer of the attempt in flight and decides. On {@link Decision.RetryAfter} the call
     * is already re-scheduled: a later {@link #poll()} starts it.
     *
     * @throws IllegalStateException if the call has no attempt in flight (answered twice, or never
     *     started)
     */
    Decision onAnswer(CoreCall<A> call, Answer answer);

    /**
     * Cancels a call: removes it from the queue or the retry timers, or frees the slot of its attempt
     * in flight (whose answer, if it still arrives, is ignored). Idempotent.
     */
    void cancel(CoreCall<A> call);

    /**
     * Follows the policies of a snapshot obtained outside any call — the API's usage endpoint read
     * at start (SPEC §3.6, §4.6: the pacer is seeded from it, then follows the headers). Nothing is
     * counted as a request.
     */
    void observe(dev.sluice.wire.snapshot.RateLimitSnapshot snapshot);

    /** Counts a fallback answer (degrade rather than fail), apart from successes and errors. */
    void recordFallback(String host, dev.sluice.client.FallbackReason reason);

    /** Counters since creation. */
    ClientStats stats();
}
