package dev.sluice.client;

import java.time.Duration;

/**
 * Adaptive client-side throttling (SPEC §4.5; Google SRE book, "Handling Overload"): over the last
 * {@code window}, a new request is dropped locally with probability
 * {@code max(0, (requests − k·accepts) / (requests + 1))}. Every attempt's answer (retries
 * included) is counted when it completes (R12); only new calls are dropped — a retry already granted
 * by the retry budget is never dropped (§4.2).
 *
 * <p>Defaults: enabled, {@code k} = 2, {@code window} = 2 minutes (SPEC §4.5). A lower {@code k}
 * (1.1) starts dropping sooner.
 */
public record ThrottleConfig(boolean enabled, double k, Duration window) {

    public ThrottleConfig {
        if (!(k >= 1.0) || Double.isInfinite(k)) {
            throw new IllegalArgumentException("k must be a finite number >= 1: " + k);
        }
        RetryConfig.positive(window, "window");
        if (window.toMillis() < 1000) {
            throw new IllegalArgumentException("window must be at least 1 s: " + window);
        }
    }

    public static ThrottleConfig defaults() {
        return new ThrottleConfig(true, 2.0, Duration.ofMinutes(2));
    }

    /** The default window with multiplier {@code k}. */
    public static ThrottleConfig withK(double k) {
        return new ThrottleConfig(true, k, Duration.ofMinutes(2));
    }

    public static ThrottleConfig disabled() {
        return new ThrottleConfig(false, 2.0, Duration.ofMinutes(2));
    }
}
