package dev.sluice.redis.client;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.Objects;

/**
 * How the SDK's shared pacer bucket and retry budget use Redis, and what they do when it does not
 * answer (SPEC §4.8). Build with {@link #builder()}; every setting has a default.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code keyPrefix}</td><td>{@code sluice:sdk:}</td><td>prefix of every Redis key written</td></tr>
 *   <tr><td>{@code processCount}</td><td>1</td><td>{@code N}: processes sharing the provider's limit. While
 *       Redis is unreachable each one paces alone at {@code rate/N} with a bucket of {@code capacity/N}
 *       (at least 1), and its retry budget's floor is {@code ceil(minRetries/N)}</td></tr>
 *   <tr><td>{@code decisionTimeout}</td><td>50 ms</td><td>longest wait for Redis per operation; then the
 *       local fallback answers</td></tr>
 *   <tr><td>{@code minKeyTtl}</td><td>60 s</td><td>shortest expiry of the bucket's key: it also holds the
 *       rate and capacity processes learned from the provider's headers</td></tr>
 *   <tr><td>{@code budget}</td><td>{@link RetryBudgetConfig#defaults()}</td><td>the shared retry budget
 *       (the client builder's own {@code budget(...)} applies only to its in-memory budget)</td></tr>
 *   <tr><td>{@code localTime}</td><td>{@link TimeSource#system()}</td><td>this process's clock, for the
 *       rate of fallback log lines</td></tr>
 *   <tr><td>{@code callerClock}</td><td>false</td><td>false in production: the scripts read the server's
 *       {@code TIME}, the one clock of every process. <b>Test mode</b> (true): the scripts take the
 *       caller's monotonic {@code nowNanos} (relative to its first reading, in µs) as their clock, so a fake
 *       clock drives Redis exactly as it drives the in-memory stores. Meaningless across processes</td></tr>
 * </table>
 *
 */
public record SharedLimitsConfig(
        String keyPrefix,
        int processCount,
        Duration decisionTimeout,
        Duration minKeyTtl,
        RetryBudgetConfig budget,
        TimeSource localTime,
        boolean callerClock) {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range
     * @throws NullPointerException when a value is {@code null}
     */
    public SharedLimitsConfig {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        if (processCount < 1) {
            throw new IllegalArgumentException("processCount: must be >= 1, was " + processCount);
        }
        requirePositive("decisionTimeout", decisionTimeout);
        requirePositive("minKeyTtl", minKeyTtl);
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(localTime, "localTime");
    }

    private static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": must be > 0, was " + d);
        }
    }

    /** The defaults of the table above. */
    public static SharedLimitsConfig defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.keyPrefix = keyPrefix;
        b.processCount = processCount;
        b.decisionTimeout = decisionTimeout;
        b.minKeyTtl = minKeyTtl;
        b.budget = budget;
        b.localTime = localTime;
        b.callerClock = callerClock;
        return b;
    }

    /** Builds a {@link SharedLimitsConfig}; not thread-safe. */
    public static final class Builder {
        private String keyPrefix = "sluice:sdk:";
        private int processCount = 1;
        private Duration decisionTimeout = Duration.ofMillis(50);
        private Duration minKeyTtl = Duration.ofSeconds(60);
        private RetryBudgetConfig budget = RetryBudgetConfig.defaults();
        private TimeSource localTime = TimeSource.system();
        private boolean callerClock;

        private Builder() {
        }

        public Builder keyPrefix(String v) { this.keyPrefix = v; return this; }
        public Builder processCount(int v) { this.processCount = v; return this; }
        public Builder decisionTimeout(Duration v) { this.decisionTimeout = v; return this; }
        public Builder minKeyTtl(Duration v) { this.minKeyTtl = v; return this; }
        public Builder budget(RetryBudgetConfig v) { this.budget = v; return this; }
        public Builder localTime(TimeSource v) { this.localTime = v; return this; }
        /** Test mode: see the settings table. */
        public Builder callerClock(boolean v) { this.callerClock = v; return this; }

        /** @throws IllegalArgumentException naming the field when a value is out of range */
        public SharedLimitsConfig build() {
            return new SharedLimitsConfig(keyPrefix, processCount, decisionTimeout, minKeyTtl, budget, localTime,
                    callerClock);
        }
    }
}
