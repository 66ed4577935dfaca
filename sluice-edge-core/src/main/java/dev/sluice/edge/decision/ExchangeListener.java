package dev.sluice.edge.decision;

/**
 * Told how a forwarded request ended. Stages attach listeners to a {@link Verdict.Forward} to act on
 * the upstream's answer: the limiter stage refunds an upstream 503 (SPEC §3.9); a shedder releases
 * its concurrency slot; an idempotency stage records the final status.
 *
 * <p>Called on the request's event loop, each method at most once per exchange: must not block and
 * must not throw.
 */
public interface ExchangeListener {

    /** The upstream's response head arrived with {@code status}. */
    default void onUpstreamResponse(int status) {
    }

    /**
     * The exchange is over: the response was written completely, or it failed (upstream unreachable
     * or timed out, client gone). Called after {@link #onUpstreamResponse} when that was called.
     *
     * @param completed whether the whole response reached the client connection
     */
    default void onEnd(boolean completed) {
    }
}
