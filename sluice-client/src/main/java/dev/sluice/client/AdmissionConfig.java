package dev.sluice.client;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The admission queue where calls wait for a slot, the pacer and their retry time (SPEC §5).
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code maxQueue}</td><td>100</td><td>waiting calls; size it with
 *       {@link LittlesLaw#queueLength(double, Duration)} (20/s × 5 s = 100, SPEC §5.1)</td></tr>
 *   <tr><td>{@code maxConcurrent}</td><td>64</td><td>calls in flight: the provider's concurrency limit</td></tr>
 *   <tr><td>{@code queueTimeout}</td><td>none</td><td>longest wait of one entry; the wait bound is
 *       {@code min(remaining deadline, queueTimeout)} (R20)</td></tr>
 *   <tr><td>{@code agingStep}</td><td>none (off)</td><td>when set, a waiting call's effective priority
 *       improves by one level per step, down to 0 (R21); SPEC §5 keeps strict priority by default</td></tr>
 * </table>
 */
public record AdmissionConfig(int maxQueue, int maxConcurrent, @Nullable Duration queueTimeout,
        @Nullable Duration agingStep) {

    public AdmissionConfig {
        if (maxQueue < 0) {
            throw new IllegalArgumentException("maxQueue must be >= 0: " + maxQueue);
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("maxConcurrent must be >= 1: " + maxConcurrent);
        }
        if (queueTimeout != null) {
            RetryConfig.positive(queueTimeout, "queueTimeout");
        }
        if (agingStep != null) {
            RetryConfig.positive(agingStep, "agingStep");
        }
    }

    public static AdmissionConfig defaults() {
        return new AdmissionConfig(100, 64, null, null);
    }

    public static AdmissionConfig of(int maxQueue, int maxConcurrent) {
        return new AdmissionConfig(maxQueue, maxConcurrent, null, null);
    }

    public Optional<Duration> queueTimeoutOptional() {
        return Optional.ofNullable(queueTimeout);
    }

    public AdmissionConfig withQueueTimeout(@Nullable Duration timeout) {
        return new AdmissionConfig(maxQueue, maxConcurrent, timeout, agingStep);
    }

    public AdmissionConfig withAgingStep(@Nullable Duration step) {
        return new AdmissionConfig(maxQueue, maxConcurrent, queueTimeout, step);
    }
}
