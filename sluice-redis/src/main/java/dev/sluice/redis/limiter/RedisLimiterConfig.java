package dev.sluice.redis.limiter;

import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RedisLimiterStore} uses Redis and what it does when Redis does not answer (SPEC §3.14).
 * Build with {@link #builder()}; every setting has a default.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code keyPrefix}</td><td>{@code sluice:lim:}</td><td>prefix of every Redis key the store writes</td></tr>
 *   <tr><td>{@code decisionTimeout}</td><td>50 ms</td><td>longest wait for Redis per decision; then the
 *       failure mode answers</td></tr>
 *   <tr><td>{@code failureMode}</td><td>{@link FailureMode#FAIL_OPEN_DEGRADED}</td><td>local limiter at
 *       {@code q/N}, or 503</td></tr>
 *   <tr><td>{@code replicaCount}</td><td>1</td><td>{@code N}: replicas sharing the limits (the local share
 *       of each policy is {@code ceil(q/N)})</td></tr>
 *   <tr><td>{@code unavailableRetryAfter}</td><td>1 s</td><td>Retry-After of a fail-closed 503</td></tr>
 *   <tr><td>{@code denyCacheMaxAge}</td><td>1 s</td><td>longest a key known to be over a limit is answered
 *       locally (never past its Retry-After); zero disables the cache</td></tr>
 *   <tr><td>{@code denyCacheMaxEntries}</td><td>10,000</td><td>bound of the deny cache</td></tr>
 *   <tr><td>{@code minKeyTtl}</td><td>1 s</td><td>shortest expiry of a written key (each key lives at least
 *       until its state is full again)</td></tr>
 *   <tr><td>{@code localTime}</td><td>{@link TimeSource#system()}</td><td>this process's clock: the local
 *       fallback limiter and the deny cache's ageing</td></tr>
 *   <tr><td>{@code scriptTime}</td><td>{@code null}</td><td>{@code null} in production: the script reads the
 *       server's {@code TIME}, the one clock of all replicas. <b>Test mode</b>: a {@link TimeSource} whose
 *       {@code now()} (in microseconds) the script takes as an argument instead, so a fake clock drives
 *       Redis exactly as it drives the in-memory store</td></tr>
 *   <tr><td>{@code concurrencyLease}</td><td>5 min</td><td>longest a {@code concurrent-requests} slot is held
 *       without a release: each admission is a permit in a sorted set scored by its expiry (script clock +
 *       lease); an expired permit (a replica that died mid-request) no longer counts. At most 30 days</td></tr>
 * </table>
 */
public record RedisLimiterConfig(
        String keyPrefix,
        Duration decisionTimeout,
        FailureMode failureMode,
        int replicaCount,
        Duration unavailableRetryAfter,
        Duration denyCacheMaxAge,
        int denyCacheMaxEntries,
        Duration minKeyTtl,
        TimeSource localTime,
        TimeSource scriptTime,
        Duration concurrencyLease) {

    /**
     * @throws IllegalArgumentException naming the field when a value is out of range
     * @throws NullPointerException when a required value is {@code null} ({@code scriptTime} may be)
     */
    public RedisLimiterConfig {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        requirePositive("decisionTimeout", decisionTimeout);
        Objects.requireNonNull(failureMode, "failureMode");
        if (replicaCount < 1) {
            throw new IllegalArgumentException("replicaCount: must be >= 1, was " + replicaCount);
        }
        requirePositive("unavailableRetryAfter", unavailableRetryAfter);
        if (denyCacheMaxAge == null || denyCacheMaxAge.isNegative()) {
            throw new IllegalArgumentException("denyCacheMaxAge: must be >= 0, was " + denyCacheMaxAge);
        }
        if (denyCacheMaxEntries < 1) {
            throw new IllegalArgumentException("denyCacheMaxEntries: must be >= 1, was " + denyCacheMaxEntries);
        }
        requirePositive("minKeyTtl", minKeyTtl);
        Objects.requireNonNull(localTime, "localTime");
        requirePositive("concurrencyLease", concurrencyLease);
        if (concurrencyLease.compareTo(MAX_CONCURRENCY_LEASE) > 0) {
            throw new IllegalArgumentException("concurrencyLease: must be at most " + MAX_CONCURRENCY_LEASE.toDays()
                    + " days, was " + concurrencyLease);
        }
    }

    /** The longest {@link #concurrencyLease()}: 30 days (a permit's expiry stays an exact integer in Lua). */
    public static final Duration MAX_CONCURRENCY_LEASE = Duration.ofDays(30);

    private static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": must be > 0, was " + d);
        }
    }

    /** The defaults of the table above. */
    public static RedisLimiterConfig defaults() {
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
        b.decisionTimeout = decisionTimeout;
        b.failureMode = failureMode;
        b.replicaCount = replicaCount;
        b.unavailableRetryAfter = unavailableRetryAfter;
        b.denyCacheMaxAge = denyCacheMaxAge;
        b.denyCacheMaxEntries = denyCacheMaxEntries;
        b.minKeyTtl = minKeyTtl;
        b.localTime = localTime;
        b.scriptTime = scriptTime;
        b.concurrencyLease = concurrencyLease;
        return b;
    }

    /** Whether the script takes its clock from {@link #scriptTime()} (test mode) instead of {@code TIME}. */
    public boolean testMode() {
        return scriptTime != null;
    }

    /** Builds a {@link RedisLimiterConfig}; not thread-safe. */
    public static final class Builder {
        private String keyPrefix = "sluice:lim:";
        private Duration decisionTimeout = Duration.ofMillis(50);
        private FailureMode failureMode = FailureMode.FAIL_OPEN_DEGRADED;
        private int replicaCount = 1;
        private Duration unavailableRetryAfter = Duration.ofSeconds(1);
        private Duration denyCacheMaxAge = Duration.ofSeconds(1);
        private int denyCacheMaxEntries = 10_000;
        private Duration minKeyTtl = Duration.ofSeconds(1);
        private TimeSource localTime = TimeSource.system();
        private TimeSource scriptTime;
        private Duration concurrencyLease = Duration.ofMinutes(5);

        private Builder() {}

        public Builder keyPrefix(String prefix) {
            this.keyPrefix = prefix;
            return this;
        }

        public Builder decisionTimeout(Duration timeout) {
            this.decisionTimeout = timeout;
            return this;
        }

        public Builder failureMode(FailureMode mode) {
            this.failureMode = mode;
            return this;
        }

        public Builder replicaCount(int replicas) {
            this.replicaCount = replicas;
            return this;
        }

        public Builder unavailableRetryAfter(Duration retryAfter) {
            this.unavailableRetryAfter = retryAfter;
            return this;
        }

        /** {@link Duration#ZERO} disables the deny cache. */
        public Builder denyCacheMaxAge(Duration maxAge) {
            this.denyCacheMaxAge = maxAge;
            return this;
        }

        public Builder denyCacheMaxEntries(int entries) {
            this.denyCacheMaxEntries = entries;
            return this;
        }

        public Builder minKeyTtl(Duration ttl) {
            this.minKeyTtl = ttl;
            return this;
        }

        public Builder localTime(TimeSource time) {
            this.localTime = time;
            return this;
        }

        /** Test mode: the script's clock is {@code time.now()}; {@code null} restores the server's {@code TIME}. */
        public Builder scriptTime(TimeSource time) {
            this.scriptTime = time;
            return this;
        }

        /**
         * The longest a concurrency slot is held without a release (a crashed replica's slots come back
         * after it): longer than the longest request the edge serves.
         */
        public Builder concurrencyLease(Duration lease) {
            this.concurrencyLease = lease;
            return this;
        }

        /**
         * @throws IllegalArgumentException naming the field when a value is out of range
         */
        public RedisLimiterConfig build() {
            return new RedisLimiterConfig(keyPrefix, decisionTimeout, failureMode, replicaCount, unavailableRetryAfter,
                    denyCacheMaxAge, denyCacheMaxEntries, minKeyTtl, localTime, scriptTime, concurrencyLease);
        }
    }
}
