package dev.sluice.client.internal.retry;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.internal.throttle.SlidingWindowCounter;
import dev.sluice.client.spi.RetryBudgetStore;

/**
 * The retry budget of one process (SPEC §4.2): a retry is granted while
 * {@code retries < max(minRetries, ratio × requests)} over the sliding window. Thread-safe
 * (synchronized; held for a few array reads).
 */
public final class InMemoryRetryBudget implements RetryBudgetStore {

    private final RetryBudgetConfig config;
    private final SlidingWindowCounter requests;
    private final SlidingWindowCounter retries;

    public InMemoryRetryBudget(RetryBudgetConfig config) {
        this.config = config;
        this.requests = SlidingWindowCounter.ofSeconds(config.window());
        this.retries = SlidingWindowCounter.ofSeconds(config.window());
    }

    @Override
    public synchronized void recordRequest(long nowNanos) {
        requests.add(nowNanos, 1);
    }

    @Override
    public synchronized boolean tryAcquireRetry(long nowNanos) {
        double allowed = Math.max(config.minRetries(), config.ratio() * requests.sum(nowNanos));
        if (retries.sum(nowNanos) < allowed) {
            retries.add(nowNanos, 1);
            return true;
        }
        return false;
    }

    public synchronized long requests(long nowNanos) {
        return requests.sum(nowNanos);
    }

    public synchronized long retries(long nowNanos) {
        return retries.sum(nowNanos);
    }
}
