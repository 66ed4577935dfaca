package dev.sluice.client.internal.observe;

import dev.sluice.client.internal.throttle.SlidingWindowCounter;
import java.time.Duration;
import java.util.Arrays;

/**
 * "Know the dependency" for one host: its steady-state request rate (attempts over the last minute)
 * and the p99 latency of its successful calls (over the last {@value #SAMPLES} successes). A
 * timeout below that p99 turns latency into errors and errors into retries, so the engine warns
 * once when a configured timeout is below it. Not thread-safe; the owner locks.
 */
public final class DependencyProfile {

    static final int SAMPLES = 1024;
    /** The p99 of fewer samples than this says little; no warning before. */
    public static final int MIN_SAMPLES_FOR_P99 = 100;

    private final SlidingWindowCounter attempts = SlidingWindowCounter.ofSeconds(Duration.ofMinutes(1));
    /** The ring of samples: grown by doubling while it fills, so a host with few successes holds a small array. */
    private long[] latencies = new long[16];
    private int count;
    private int next;
    private boolean warned;
    private long successes;

    public void recordAttempt(long nowNanos) {
        attempts.add(nowNanos, 1);
    }

    public void recordSuccess(Duration latency) {
        if (next == latencies.length && latencies.length < SAMPLES) {
            latencies = Arrays.copyOf(latencies, Math.min(SAMPLES, latencies.length * 2)); // still filling: next == count
        }
        latencies[next] = Math.max(0, latency.toNanos());
        next = (next + 1) % SAMPLES;
        count = Math.min(SAMPLES, count + 1);
        successes++;
    }

    /** Attempts per second over the last minute. */
    public double requestsPerSecond(long nowNanos) {
        return attempts.sum(nowNanos) / 60.0;
    }

    /** Successful calls recorded (up to {@value #SAMPLES}). */
    public int samples() {
        return count;
    }

    /** The 99th percentile (nearest rank) of the recorded successful latencies; zero without samples. */
    public Duration p99() {
        if (count == 0) {
            return Duration.ZERO;
        }
        long[] copy = Arrays.copyOf(latencies, count);
        Arrays.sort(copy);
        int rank = (int) Math.ceil(0.99 * count) - 1;
        return Duration.ofNanos(copy[Math.max(0, rank)]);
    }

    /**
     * True exactly once: the first time {@code timeout} is found below the p99 of at least
     * {@link #MIN_SAMPLES_FOR_P99} successes (checked every 50th success).
     */
    public boolean shouldWarn(Duration timeout) {
        // the p99 sorts the samples: look every 50 successes, from the 100th on
        if (warned || timeout == null || count < MIN_SAMPLES_FOR_P99 || successes % 50 != 0) {
            return false;
        }
        if (timeout.compareTo(p99()) < 0) {
            warned = true;
            return true;
        }
        return false;
    }
}
