package dev.sluice.limiter.spi;

/**
 * What a shared {@link LimiterStore} (Redis, SPEC §3.14) answers when it cannot reach its shared state
 * within its bounded decision time. A store has a default mode; {@link LimiterStore#withFailureMode}
 * gives a view deciding with another, so the edge can make one route fail closed while the rest fail
 * open. A store that keeps its state in its own memory never fails and ignores the mode.
 */
public enum FailureMode {

    /**
     * The default: decide locally, in this process's memory, with every policy's {@code q} divided by
     * the configured replica count {@code N} (rounded up: R17), so N replicas together admit about
     * what one shared store would. Approximate and stated as such: each replica counts from zero when
     * the outage starts (a key that had spent its daily quota gets {@code q/N} more per replica), keys
     * spread unevenly over replicas are limited unevenly, and the decisions carry the degraded plan so
     * {@code RateLimit-Policy} shows the {@code q} actually enforced.
     */
    FAIL_OPEN_DEGRADED,

    /**
     * Decide nothing: answer {@link dev.sluice.limiter.Unavailable}, which the edge turns into 503
     * {@code overloaded} with {@code Retry-After}. For limits that must never be exceeded.
     */
    FAIL_CLOSED
}
