package dev.sluice.client.spi;

/**
 * Where the client-wide retry budget lives (SPEC §4.2, §4.8): a sliding window of requests and
 * retries. The in-memory implementation serves one process; a shared one (Redis) serves N
 * processes that must keep their retries together under the ratio.
 *
 * <p>Time arguments are monotonic readings, as in {@link TokenBucketStore}. Thread-safe.
 */
public interface RetryBudgetStore {

    /** Counts one call (its first attempt) in the window. */
    void recordRequest(long nowNanos);

    /**
     * Grants one retry when the window's retries are below the budget, counting it; otherwise
     * counts nothing.
     *
     * @return whether the retry may be sent
     */
    boolean tryAcquireRetry(long nowNanos);
}
