package dev.sluice.client.spi;

/**
 * Where the pacer's token bucket lives (SPEC §4.6). The in-memory implementation serves one
 * process; a shared implementation (Redis, SPEC §4.8) lets N processes that share one provider
 * limit share one bucket, so that their sum stays under the limit.
 *
 * <p>Time arguments are readings of the caller's monotonic clock ({@code TimeSource.nanoTime()}),
 * compared only by subtraction. A shared implementation cannot compare readings of different
 * processes: it should take time from its store's own clock and use the arguments only to measure
 * local intervals. Tokens are fractional (a partially refilled token counts: regression case R13).
 *
 * <p>Implementations are thread-safe.
 */
public interface TokenBucketStore {

    /**
     * The in-process bucket a client uses by default: unlimited until a pacer configures it. Give
     * one instance to several {@code ClientCore}s of one process (or of a simulated fleet) and they
     * share one bucket, as SPEC §4.8 asks of processes under one provider limit.
     *
     * @param nowNanos the current reading of the monotonic clock the cores use
     */
    static TokenBucketStore inMemory(long nowNanos) {
        return dev.sluice.client.internal.pacing.InMemoryTokenBucket.unlimited(nowNanos);
    }

    /**
     * Takes {@code cost} tokens if they are there.
     *
     * @param cost tokens to take, {@code > 0}
     * @param nowNanos the current monotonic reading
     * @return 0 when the tokens were taken; otherwise the nanoseconds until they could be (at
     *     least 1), {@link Long#MAX_VALUE} when they never could at the current rate
     * @throws IllegalArgumentException when {@code cost} exceeds the capacity: waiting can never
     *     help (regression case R14)
     */
    long tryAcquire(double cost, long nowNanos);

    /**
     * Sets the refill rate and capacity. {@code Double.POSITIVE_INFINITY} for both means "no
     * limit". Tokens above the new capacity are dropped.
     */
    void configure(double perSecond, double capacity, long nowNanos);

    /** Lowers the tokens to at most {@code maxTokens} (the server reported fewer remaining). */
    void clamp(double maxTokens, long nowNanos);

    /**
     * Empties the bucket and stops refilling it until {@code untilNanos} (a 429's Retry-After, or a
     * policy's reset): SPEC §4.6. A later pause never shortens an earlier one.
     */
    void drainAndPause(long untilNanos, long nowNanos);

    /** The tokens available now (after refill), for metrics and tests. */
    double available(long nowNanos);

    /** The current capacity. */
    double capacity();
}
