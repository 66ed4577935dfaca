package dev.sluice.edge.shedding;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code shedding:} section (SPEC §3.9). Immutable.
 *
 * <pre>{@code
 * shedding:
 *   mode: static            # static (default) | adaptive | off
 *   limit: 64               # static: upstream requests in flight at most (default: upstream.pool-size)
 *   reserved-percent: 20    # share of the limit only CRITICAL_PLUS / CRITICAL may use
 *   retry-after: 1s         # Retry-After of a shed 503
 *   adaptive: { initial-limit: 20, min-limit: 4, max-limit: 64 }   # Gradient2 (Netflix concurrency-limits)
 *   fair-share-window: 5s   # keys seen this recently share the upper half of each ceiling fairly (off: no)
 * }</pre>
 *
 * @param mode how the concurrency limit is set
 * @param limit the static limit, &gt; 0
 * @param reservedPercent 0..100
 * @param retryAfter the shed 503's Retry-After, ≥ 1 s
 * @param initialLimit adaptive: the limit before any sample
 * @param minLimit adaptive: the lowest limit
 * @param maxLimit adaptive: the highest limit
 * @param fairShareWindow how long a key counts as active after its last request, for the per-key fair share
 *     ({@link CriticalityShedder}); {@link Duration#ZERO}: no per-key share
 */
public record SheddingConfig(Mode mode, int limit, int reservedPercent, Duration retryAfter, int initialLimit,
        int minLimit, int maxLimit, Duration fairShareWindow) {

    /** How the concurrency limit is set. */
    public enum Mode {
        /** A fixed limit from configuration. */
        STATIC,
        /** A gradient limit fed by observed upstream latency (queueing delay lowers it). */
        ADAPTIVE,
        /** No shedding: every request goes on to the limiter. */
        OFF
    }

    /** The default reserved share for CRITICAL* (SPEC §3.9). */
    public static final int DEFAULT_RESERVED_PERCENT = 20;
    public static final Duration DEFAULT_RETRY_AFTER = Duration.ofSeconds(1);
    /** The default {@link #fairShareWindow()}: 5 s. */
    public static final Duration DEFAULT_FAIR_SHARE_WINDOW = Duration.ofSeconds(5);

    public SheddingConfig {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(retryAfter, "retryAfter");
        Objects.requireNonNull(fairShareWindow, "fairShareWindow");
        if (fairShareWindow.isNegative()) {
            throw new IllegalArgumentException("fair-share-window: must be >= 0, was " + fairShareWindow);
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit: must be >= 1, was " + limit);
        }
        if (reservedPercent < 0 || reservedPercent > 100) {
            throw new IllegalArgumentException("reserved-percent: must be in 0..100, was " + reservedPercent);
        }
        if (retryAfter.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("retry-after: must be >= 1s, was " + retryAfter);
        }
        if (minLimit < 1 || initialLimit < minLimit || maxLimit < initialLimit) {
            throw new IllegalArgumentException("adaptive: need 1 <= min-limit <= initial-limit <= max-limit, was "
                    + minLimit + " / " + initialLimit + " / " + maxLimit);
        }
    }

    /** A configuration with the default {@link #fairShareWindow()}. */
    public SheddingConfig(Mode mode, int limit, int reservedPercent, Duration retryAfter, int initialLimit,
            int minLimit, int maxLimit) {
        this(mode, limit, reservedPercent, retryAfter, initialLimit, minLimit, maxLimit, DEFAULT_FAIR_SHARE_WINDOW);
    }

    /** This configuration with another {@link #fairShareWindow()} ({@link Duration#ZERO}: off). */
    public SheddingConfig withFairShareWindow(Duration window) {
        return new SheddingConfig(mode, limit, reservedPercent, retryAfter, initialLimit, minLimit, maxLimit, window);
    }

    /** The defaults for an upstream pool of {@code poolSize} connections: a static limit of that size. */
    public static SheddingConfig defaults(int poolSize) {
        int max = Math.max(1, poolSize);
        return new SheddingConfig(Mode.STATIC, max, DEFAULT_RESERVED_PERCENT, DEFAULT_RETRY_AFTER,
                Math.min(20, max), Math.min(4, Math.min(20, max)), max);
    }
}
