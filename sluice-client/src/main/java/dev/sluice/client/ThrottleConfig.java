package dev.sluice.client;

import java.time.Duration;

/**
 * Adaptive client-side throttling (SPEC §4.5; Google SRE book, "Handling Overload"): over the last
 * {@code window}, a new request is dropped locally with probability
 * {@code max(0, (requests − k·accepts) / (requests + 1))}. Every attempt's answer (retries
 * included) is counted when it completes (R12); only new calls are dropped — a retry already granted
 * by the retry budget is never dropped (§4.2). A 429 the pacer honours is not counted (the pacer's
 * signal, not the backend's health).
 *
 * <p>Two safety valves, as in Envoy's admission-control filter ({@code rps_threshold},
 * {@code max_rejection_probability}), on by default: while the window's request rate
 * ({@code requests / window}) is below {@code minRequestsPerSecond} nothing is dropped, since a
 * fresh or quiet client's counts say little and its load matters little; and the probability never
 * exceeds {@code maxDropProbability}, so a client keeps probing and sees the backend recover.
 * {@link #withoutSafetyValves()} gives the bare formula (the §4.5 table).
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>rule</th></tr>
 *   <tr><td>{@code enabled}</td><td>true</td><td></td></tr>
 *   <tr><td>{@code k}</td><td>2</td><td>§4.5; a lower {@code k} (1.1) starts dropping sooner</td></tr>
 *   <tr><td>{@code window}</td><td>2 minutes</td><td>§4.5</td></tr>
 *   <tr><td>{@code minRequestsPerSecond}</td><td>1</td><td>below 120 requests in the 2-minute window
 *       nothing is dropped (0 = off)</td></tr>
 *   <tr><td>{@code maxDropProbability}</td><td>0.8</td><td>Envoy's default (1 = off)</td></tr>
 * </table>
 */
public record ThrottleConfig(boolean enabled, double k, Duration window, double minRequestsPerSecond,
        double maxDropProbability) {

    public ThrottleConfig {
        if (!(k >= 1.0) || Double.isInfinite(k)) {
            throw new IllegalArgumentException("k must be a finite number >= 1: " + k);
        }
        RetryConfig.positive(window, "window");
        if (window.toMillis() < 1000) {
            throw new IllegalArgumentException("window must be at least 1 s: " + window);
        }
        if (!(minRequestsPerSecond >= 0) || Double.isInfinite(minRequestsPerSecond)) {
            throw new IllegalArgumentException("minRequestsPerSecond must be >= 0 and finite: " + minRequestsPerSecond);
        }
        if (!(maxDropProbability > 0) || maxDropProbability > 1) {
            throw new IllegalArgumentException("maxDropProbability must be in (0, 1]: " + maxDropProbability);
        }
    }

    /** {@code k} and {@code window} with the default safety valves (1 request/s, 80 %). */
    public ThrottleConfig(boolean enabled, double k, Duration window) {
        this(enabled, k, window, 1.0, 0.8);
    }

    public static ThrottleConfig defaults() {
        return new ThrottleConfig(true, 2.0, Duration.ofMinutes(2));
    }

    /** The default window and valves with multiplier {@code k}. */
    public static ThrottleConfig withK(double k) {
        return new ThrottleConfig(true, k, Duration.ofMinutes(2));
    }

    public static ThrottleConfig disabled() {
        return new ThrottleConfig(false, 2.0, Duration.ofMinutes(2));
    }

    /** This configuration with both valves off: the bare §4.5 formula, as in its table. */
    public ThrottleConfig withoutSafetyValves() {
        return new ThrottleConfig(enabled, k, window, 0.0, 1.0);
    }

    /** This configuration with other safety valves. */
    public ThrottleConfig withSafetyValves(double minRequestsPerSecond, double maxDropProbability) {
        return new ThrottleConfig(enabled, k, window, minRequestsPerSecond, maxDropProbability);
    }
}
