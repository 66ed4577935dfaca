package dev.sluice.client.internal.retry;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.internal.throttle.SlidingWindowCounter;
import dev.sluice.client.spi.RetryBudgetStore;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The retry budget of one process (SPEC §4.2, §8): a retry is granted while
 * {@code retries < max(minRetries, ratio × requests)} over the sliding window and, when the config
 * has a spread window, {@code retries + 1 ≤ max(spreadFloor, ratio × requests)} over it
 * ({@link RetryBudgetConfig}). Thread-safe (synchronized; held for a few array reads).
 */
public final class InMemoryRetryBudget implements RetryBudgetStore {

    /** Slot of the spread window's counters: the window is exact to this. */
    private static final Duration SPREAD_SLOT = Duration.ofMillis(100);

    private final RetryBudgetConfig config;
    private final SlidingWindowCounter requests;
    private final SlidingWindowCounter retries;
    /** The spread window's counters: both present, or both {@code null} when the config has none. */
    private final @Nullable SlidingWindowCounter recentRequests;
    private final @Nullable SlidingWindowCounter recentRetries;
    private final double spreadFloor;

    public InMemoryRetryBudget(RetryBudgetConfig config) {
        this.config = config;
        this.requests = SlidingWindowCounter.ofSeconds(config.window());
        this.retries = SlidingWindowCounter.ofSeconds(config.window());
        if (config.spreads()) {
            Duration w = Duration.ofMillis(Math.max(SPREAD_SLOT.toMillis(),
                    config.spreadWindow().toMillis() / SPREAD_SLOT.toMillis() * SPREAD_SLOT.toMillis()));
            this.recentRequests = new SlidingWindowCounter(w, SPREAD_SLOT);
            this.recentRetries = new SlidingWindowCounter(w, SPREAD_SLOT);
        } else {
            this.recentRequests = null;
            this.recentRetries = null;
        }
        this.spreadFloor = config.spreadFloor();
    }

    @Override
    public synchronized void recordRequest(long nowNanos) {
        requests.add(nowNanos, 1);
        if (recentRequests != null) {
            recentRequests.add(nowNanos, 1);
        }
    }

    @Override
    public synchronized boolean tryAcquireRetry(long nowNanos) {
        double allowed = Math.max(config.minRetries(), config.ratio() * requests.sum(nowNanos));
        if (retries.sum(nowNanos) >= allowed) {
            return false;
        }
        if (recentRequests != null && recentRetries != null) {
            double recentAllowed = Math.max(spreadFloor, config.ratio() * recentRequests.sum(nowNanos));
            if (recentRetries.sum(nowNanos) + 1 > recentAllowed) {
                return false;
            }
            recentRetries.add(nowNanos, 1);
        }
        retries.add(nowNanos, 1);
        return true;
    }

    public synchronized long requests(long nowNanos) {
        return requests.sum(nowNanos);
    }

    public synchronized long retries(long nowNanos) {
        return retries.sum(nowNanos);
    }
}
