package dev.sluice.edge.escalation;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code escalation:} section (SPEC §3.12). Immutable.
 *
 * <pre>{@code
 * escalation:
 *   enabled: true
 *   threshold-percent: 50    # share of a key's requests inside its own Retry-After window
 *   window: 60s              # over this sliding window
 *   min-requests: 20         # and at least this many such requests
 *   max-doublings: 3         # Retry-After doubles per level, up to 2^3 = 8x ...
 *   max-retry-after: 60s     # ... capped here; one level more and the key is blocked
 *   block: 120s              # how long a block lasts (still 429, with an honest Retry-After)
 * }</pre>
 * A level decays by one after each {@code window} without a new escalation.
 */
public record EscalationConfig(boolean enabled, int thresholdPercent, Duration window, int minRequests,
        int maxDoublings, Duration maxRetryAfter, Duration block) {

    public EscalationConfig {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(maxRetryAfter, "maxRetryAfter");
        Objects.requireNonNull(block, "block");
        if (thresholdPercent < 1 || thresholdPercent > 100) {
            throw new IllegalArgumentException("threshold-percent: must be in 1..100, was " + thresholdPercent);
        }
        if (window.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("window: must be >= 1s, was " + window);
        }
        if (minRequests < 1) {
            throw new IllegalArgumentException("min-requests: must be >= 1, was " + minRequests);
        }
        if (maxDoublings < 0 || maxDoublings > 20) {
            throw new IllegalArgumentException("max-doublings: must be in 0..20, was " + maxDoublings);
        }
        if (maxRetryAfter.compareTo(Duration.ofSeconds(1)) < 0 || block.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("max-retry-after and block: must be >= 1s");
        }
    }

    /** SPEC §3.12's defaults: 50 % of a key's requests over a minute, with a minimum count. */
    public static EscalationConfig defaults() {
        return new EscalationConfig(true, 50, Duration.ofSeconds(60), 20, 3, Duration.ofSeconds(60),
                Duration.ofSeconds(120));
    }
}
