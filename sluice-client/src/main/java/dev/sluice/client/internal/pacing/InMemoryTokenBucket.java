package dev.sluice.client.internal.pacing;

import dev.sluice.client.spi.TokenBucketStore;

/**
 * The pacer's token bucket for one process: fractional tokens, refilled continuously at
 * {@code perSecond} up to {@code capacity}.
 *
 * <p>Monotonic time only, compared by subtraction; the last-refill reading never moves backwards,
 * and a stale reading refills nothing (regression case R15: no negative elapsed time, no phantom
 * tokens). A pause is a last-refill reading in the future: nothing refills before it.
 * Thread-safe (synchronized; O(1) under the lock).
 */
public final class InMemoryTokenBucket implements TokenBucketStore {

    /** Float noise must not turn 0.9999999999 tokens into a 1 ns wait loop. */
    private static final double EPSILON = 1e-9;

    private double perSecond;
    private double capacity;
    private double tokens;
    private long lastNanos;
    private long pausedUntilNanos;
    private boolean paused;

    /**
     * A full bucket.
     *
     * @param perSecond refill rate, {@code > 0}, or {@code +∞} for no limit
     * @param capacity bucket size, {@code >= 1}, or {@code +∞}
     * @throws IllegalArgumentException for a rate {@code <= 0} or a capacity {@code < 1} (R14b)
     */
    public InMemoryTokenBucket(double perSecond, double capacity, long nowNanos) {
        validate(perSecond, capacity);
        this.perSecond = perSecond;
        this.capacity = capacity;
        this.tokens = capacity;
        this.lastNanos = nowNanos;
    }

    /** A bucket that never limits until {@link #configure} says otherwise. */
    public static InMemoryTokenBucket unlimited(long nowNanos) {
        return new InMemoryTokenBucket(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY, nowNanos);
    }

    private static void validate(double perSecond, double capacity) {
        if (!(perSecond > 0)) {
            throw new IllegalArgumentException("perSecond must be > 0: " + perSecond);
        }
        if (!(capacity >= 1)) {
            throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
        }
    }

    @Override
    public synchronized long tryAcquire(double cost, long nowNanos) {
        if (!(cost > 0)) {
            throw new IllegalArgumentException("cost must be > 0: " + cost);
        }
        if (cost > capacity) {
            throw new IllegalArgumentException("cost " + cost + " exceeds the bucket capacity " + capacity
                    + ": it could never be granted");
        }
        refill(nowNanos);
        long pauseLeft = paused ? pausedUntilNanos - nowNanos : 0;
        if (pauseLeft > 0) {
            return saturatingAdd(pauseLeft, refillNanos(cost - tokens));
        }
        if (tokens + EPSILON >= cost) {
            tokens = Math.max(0.0, tokens - cost);
            return 0;
        }
        return Math.max(1, refillNanos(cost - tokens));
    }

    @Override
    public synchronized void configure(double perSecond, double capacity, long nowNanos) {
        validate(perSecond, capacity);
        refill(nowNanos);
        if (Double.isInfinite(this.capacity) && !Double.isInfinite(capacity)) {
            // from "no limit" to a limit: start full, as a fresh bucket would
            this.tokens = capacity;
        }
        this.perSecond = perSecond;
        this.capacity = capacity;
        this.tokens = Math.min(this.tokens, capacity);
    }

    @Override
    public synchronized void clamp(double maxTokens, long nowNanos) {
        refill(nowNanos);
        tokens = Math.max(0.0, Math.min(tokens, maxTokens));
    }

    @Override
    public synchronized void drainAndPause(long untilNanos, long nowNanos) {
        refill(nowNanos);
        tokens = 0.0;
        if (!paused || untilNanos - pausedUntilNanos > 0) {
            if (untilNanos - nowNanos > 0) {
                pausedUntilNanos = untilNanos;
                paused = true;
            }
        }
        if (paused && pausedUntilNanos - lastNanos > 0) {
            lastNanos = pausedUntilNanos; // nothing refills during the pause
        }
    }

    @Override
    public synchronized double available(long nowNanos) {
        refill(nowNanos);
        return tokens;
    }

    @Override
    public synchronized double capacity() {
        return capacity;
    }

    public synchronized double perSecond() {
        return perSecond;
    }

    private void refill(long nowNanos) {
        if (paused && nowNanos - pausedUntilNanos >= 0) {
            paused = false;
        }
        long elapsed = nowNanos - lastNanos;
        if (elapsed <= 0) {
            return; // a stale or paused reading refills nothing and never rewinds lastNanos
        }
        if (Double.isInfinite(perSecond)) {
            tokens = capacity;
        } else {
            tokens = Math.min(capacity, tokens + elapsed / 1e9 * perSecond);
        }
        lastNanos = nowNanos;
    }

    private long refillNanos(double missing) {
        if (missing <= 0) {
            return 0;
        }
        if (Double.isInfinite(perSecond)) {
            return 0;
        }
        double nanos = Math.ceil(missing / perSecond * 1e9);
        return nanos >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) nanos;
    }

    private static long saturatingAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
