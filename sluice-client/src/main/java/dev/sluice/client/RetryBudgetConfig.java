package dev.sluice.client;

import java.time.Duration;

/**
 * The client-wide retry budget (SPEC §4.2, §8: retries at most 10 % of traffic, about 1.1× load at
 * worst). A retry is allowed while {@code retries < max(minRetries, ratio × requests)} over the
 * sliding {@code window}, where {@code requests} counts calls (first attempts) and {@code retries}
 * the re-sends already granted.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@code ratio}</td><td>0.1 (SPEC §4.2)</td></tr>
 *   <tr><td>{@code window}</td><td>1 minute (SPEC §4.1)</td></tr>
 *   <tr><td>{@code minRetries}</td><td>10 per window</td></tr>
 * </table>
 *
 * <p>{@code minRetries} is Sluice's addition (Finagle's retry budget has the same floor): with a
 * pure ratio a client that sends one call a minute could never retry even once, and a 429 followed
 * by a 503 would exhaust it. The floor is tiny next to the traffic where the ratio matters; set it
 * to 0 for the literal SPEC rule.
 */
public record RetryBudgetConfig(double ratio, Duration window, int minRetries) {

    public RetryBudgetConfig {
        if (!(ratio >= 0.0) || ratio > 1.0e6) {
            throw new IllegalArgumentException("ratio must be >= 0: " + ratio);
        }
        RetryConfig.positive(window, "window");
        if (window.toMillis() < 1000) {
            throw new IllegalArgumentException("window must be at least 1 s: " + window);
        }
        if (minRetries < 0) {
            throw new IllegalArgumentException("minRetries must be >= 0: " + minRetries);
        }
    }

    /** 10 % of requests over one minute, at least 10 retries per minute. */
    public static RetryBudgetConfig defaults() {
        return new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 10);
    }

    /** The literal SPEC §4.2 rule: 10 % of requests over a minute, no floor. */
    public static RetryBudgetConfig strict() {
        return new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 0);
    }
}
