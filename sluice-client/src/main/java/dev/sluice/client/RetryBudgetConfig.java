package dev.sluice.client;

import java.time.Duration;
import java.util.Objects;

/**
 * The client-wide retry budget (SPEC §4.2, §8: retries at most 10 % of traffic, about 1.1× load at
 * worst). {@code requests} counts calls (first attempts) and {@code retries} the re-sends already
 * granted. A retry is allowed while both hold:
 *
 * <ul>
 *   <li>over the sliding {@code window}: {@code retries < max(minRetries, ratio × requests)}
 *       (SPEC §4.1's one-minute budget);</li>
 *   <li>over the last {@code spreadWindow}, the retry included:
 *       {@code retries + 1 ≤ max(spreadFloor, ratio × requests)}, where {@code spreadFloor} is
 *       {@code minRetries} scaled to the spread window, at least 2, the retries of one call at the
 *       default 3 attempts (0 when {@code minRetries} is 0).
 *       A minute's budget may otherwise be spent within seconds: a client that called steadily for
 *       a minute could send 6 s of its traffic again as retries into a 5 s blip, 2.2× its load, and
 *       SPEC §8 wants about 1.1× during an incident. {@link Duration#ZERO} turns this check off.</li>
 * </ul>
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th></tr>
 *   <tr><td>{@code ratio}</td><td>0.1 (SPEC §4.2)</td></tr>
 *   <tr><td>{@code window}</td><td>1 minute (SPEC §4.1)</td></tr>
 *   <tr><td>{@code minRetries}</td><td>10 per window</td></tr>
 *   <tr><td>{@code spreadWindow}</td><td>5 s (SPEC §8's blip); at most 2 retries in it below 20 calls in it</td></tr>
 * </table>
 *
 * <p>{@code minRetries} is Sluice's addition (Finagle's retry budget has the same floor): with a
 * pure ratio a client that sends one call a minute could never retry even once, and a 429 followed
 * by a 503 would exhaust it. The spread window keeps that floor from being spent at once: a quiet
 * client still gets its call's retries, but a small client in a blip gets 2 retries per 5 s, not ten.
 * Application instances that share a provider's limit should share one budget (SPEC §4.8,
 * {@code RetryBudgetStore}): the floor is then the group's, and the ratio governs sooner. Set
 * {@code minRetries} to 0 for the literal SPEC rule.
 *
 * @param ratio retries per request, {@code >= 0}
 * @param window the budget's sliding window, at least 1 s
 * @param minRetries retries always allowed per window, {@code >= 0}
 * @param spreadWindow the short window in which the ratio also holds, {@link Duration#ZERO} (off) or
 *     at least 100 ms and at most {@code window}
 */
public record RetryBudgetConfig(double ratio, Duration window, int minRetries, Duration spreadWindow) {

    /** The default spread window: SPEC §8's 5 s blip. */
    public static final Duration DEFAULT_SPREAD_WINDOW = Duration.ofSeconds(5);

    /**
     * Checks the settings.
     *
     * @throws IllegalArgumentException if a value is out of range
     */
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
        Objects.requireNonNull(spreadWindow, "spreadWindow");
        if (!spreadWindow.isZero() && (spreadWindow.toMillis() < 100 || spreadWindow.compareTo(window) > 0)) {
            throw new IllegalArgumentException("spreadWindow must be 0 (off) or between 100 ms and the window ("
                    + window + "): " + spreadWindow);
        }
    }

    /** A budget over {@code window} alone, without the spread window (the rule before it existed). */
    public RetryBudgetConfig(double ratio, Duration window, int minRetries) {
        this(ratio, window, minRetries, Duration.ZERO);
    }

    /** 10 % of requests over one minute, at least 10 retries per minute, and 10 % over any 5 s (at least 2). */
    public static RetryBudgetConfig defaults() {
        return new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 10, DEFAULT_SPREAD_WINDOW);
    }

    /** The literal SPEC §4.2 rule: 10 % of requests over a minute, no floor, no spread window. */
    public static RetryBudgetConfig strict() {
        return new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 0);
    }

    /** This budget with another spread window ({@link Duration#ZERO}: off). */
    public RetryBudgetConfig withSpreadWindow(Duration v) {
        return new RetryBudgetConfig(ratio, window, minRetries, v);
    }

    /** Whether the spread window is on. */
    public boolean spreads() {
        return !spreadWindow.isZero();
    }

    /**
     * The retries always allowed in the spread window: {@code minRetries × spreadWindow / window},
     * at least 2 (one call's retries at the default 3 attempts), or 0 when {@code minRetries} is 0.
     */
    public double spreadFloor() {
        if (minRetries == 0 || !spreads()) {
            return 0;
        }
        return Math.max(MIN_SPREAD_FLOOR, (double) minRetries * spreadWindow.toNanos() / window.toNanos());
    }

    /** The least {@link #spreadFloor()}: the two retries of one call at the default 3 attempts. */
    static final double MIN_SPREAD_FLOOR = 2.0;
}
