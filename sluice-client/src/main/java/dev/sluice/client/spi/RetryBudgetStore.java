package dev.sluice.client.spi;

/**
 * Where the client-wide retry budget lives (SPEC §4.2, §4.8): a sliding window of requests and
 * retries. The in-memory implementation serves one process; a shared one (Redis) serves N
 * processes that must keep their retries together under the ratio.
 *
 * <p>Time arguments are monotonic readings, as in {@link TokenBucketStore}. Thread-safe.
 */
public interface RetryBudgetStore {

    /**
     * The in-process budget a client uses by default. Give one instance to several
     * {@code ClientCore}s and their retries share one budget (SPEC §4.8).
     *
     * @param config ratio, window and floor of the budget
     */
    static RetryBudgetStore inMemory(dev.sluice.client.RetryBudgetConfig config) {
        return new dev.sluice.client.internal.retry.InMemoryRetryBudget(config);
    }

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
