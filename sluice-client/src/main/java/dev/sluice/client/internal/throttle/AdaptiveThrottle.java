package dev.sluice.client.internal.throttle;

import dev.sluice.client.ThrottleConfig;
import java.util.random.RandomGenerator;

/**
 * Adaptive client-side throttling (SPEC §4.5; Google SRE book, "Handling Overload"): over a
 * sliding window (default two minutes) the client counts requests and accepts and drops a new
 * request locally with probability {@code max(0, (requests − K·accepts) / (requests + 1))}.
 *
 * <p>Safety valves (Envoy's admission-control filter, {@code rps_threshold} and
 * {@code max_rejection_probability}): below a minimum request rate over the window nothing is
 * dropped, and the probability is capped (80 % by default) so the client keeps probing. The SRE
 * formula is meant for large counts; a fresh client's one burst of refusals is not one.
 *
 * <p>Counting follows regression case R12: an answer is recorded when it completes, not when the
 * attempt starts; an accepted answer adds a request and an accept; a rejection (429, 503, overload,
 * no answer) adds a request only; a locally dropped call adds a request only. Entries older than
 * the window stop counting, so the probability decays back to 0 after recovery.
 *
 * <p>The owner asks {@link #tryDrop} for new calls only (first attempts); retries are the retry
 * budget's business (SPEC §4.2), but their answers are recorded here like any other.
 *
 * <p>Not thread-safe; the owner locks.
 */
public final class AdaptiveThrottle {

    private final ThrottleConfig config;
    private final SlidingWindowCounter requests;
    private final SlidingWindowCounter accepts;
    private final double windowSeconds;

    public AdaptiveThrottle(ThrottleConfig config) {
        this.config = config;
        this.windowSeconds = config.window().toNanos() / 1e9;
        this.requests = SlidingWindowCounter.ofSeconds(config.window());
        this.accepts = SlidingWindowCounter.ofSeconds(config.window());
    }

    /** The SRE formula: {@code max(0, (requests − k·accepts) / (requests + 1))}. */
    public static double dropProbability(long requests, long accepts, double k) {
        if (requests < 0 || accepts < 0) {
            throw new IllegalArgumentException("counts must be >= 0");
        }
        return Math.max(0.0, (requests - k * accepts) / (requests + 1.0));
    }

    /**
     * The drop probability over the current window; 0 when disabled. With the safety valves
     * (Envoy's admission control): 0 while {@code requests / window} is below the minimum request
     * rate, and never above the maximum drop probability.
     */
    public double dropProbability(long nowNanos) {
        if (!config.enabled()) {
            return 0.0;
        }
        long n = requests.sum(nowNanos);
        if (n < config.minRequestsPerSecond() * windowSeconds) {
            return 0.0;
        }
        return Math.min(config.maxDropProbability(), dropProbability(n, accepts.sum(nowNanos), config.k()));
    }

    /**
     * Decides whether to drop a new request; when it drops, the drop is recorded as a request.
     *
     * @return the probability used when the request is dropped, or a negative number when it may go
     */
    public double tryDrop(long nowNanos, RandomGenerator random) {
        double p = dropProbability(nowNanos);
        if (p > 0.0 && random.nextDouble() < p) {
            requests.add(nowNanos, 1);
            return p;
        }
        return -1.0;
    }

    /** Records a completed attempt: a request, and an accept when {@code accepted}. */
    public void recordAnswer(long nowNanos, boolean accepted) {
        requests.add(nowNanos, 1);
        if (accepted) {
            accepts.add(nowNanos, 1);
        }
    }

    public long requests(long nowNanos) {
        return requests.sum(nowNanos);
    }

    public long accepts(long nowNanos) {
        return accepts.sum(nowNanos);
    }
}
