package dev.sluice.redis.idempotency;

import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.Objects;

/**
 * How {@link RedisIdempotencyStore} uses Redis. Build with {@link #builder()}; every setting has a
 * default.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code keyPrefix}</td><td>{@code sluice:idem:}</td><td>prefix of every record's key</td></tr>
 *   <tr><td>{@code operationTimeout}</td><td>50 ms</td><td>longest wait for Redis per operation; then
 *       the operation fails with {@link dev.sluice.redis.RedisUnavailableException} and the edge
 *       forwards without a record</td></tr>
 *   <tr><td>{@code markerTtlFactor}</td><td>2</td><td>an in-flight marker's key lives this many leases:
 *       past its lease it no longer blocks a retry, but its holder can still complete it while nobody
 *       took the key</td></tr>
 *   <tr><td>{@code scriptTime}</td><td>{@code null}</td><td>{@code null} in production: the script reads
 *       the server's {@code TIME}. <b>Test mode</b>: a {@link TimeSource} whose {@code now()} (in ms) the
 *       script takes instead, so a fake clock moves leases and retention without waiting</td></tr>
 * </table>
 *
 */
public record RedisIdempotencyConfig(String keyPrefix, Duration operationTimeout, int markerTtlFactor,
        TimeSource scriptTime) {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range
     */
    public RedisIdempotencyConfig {
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        if (operationTimeout == null || operationTimeout.isNegative() || operationTimeout.isZero()) {
            throw new IllegalArgumentException("operationTimeout: must be > 0, was " + operationTimeout);
        }
        if (markerTtlFactor < 1 || markerTtlFactor > 1_000) {
            throw new IllegalArgumentException("markerTtlFactor: must be in 1..1000, was " + markerTtlFactor);
        }
    }

    /** The defaults of the table above. */
    public static RedisIdempotencyConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builds a {@link RedisIdempotencyConfig}; not thread-safe. */
    public static final class Builder {
        private String keyPrefix = "sluice:idem:";
        private Duration operationTimeout = Duration.ofMillis(50);
        private int markerTtlFactor = 2;
        private TimeSource scriptTime;

        private Builder() {}

        public Builder keyPrefix(String prefix) {
            this.keyPrefix = prefix;
            return this;
        }

        public Builder operationTimeout(Duration timeout) {
            this.operationTimeout = timeout;
            return this;
        }

        public Builder markerTtlFactor(int factor) {
            this.markerTtlFactor = factor;
            return this;
        }

        /** Test mode: the script's clock is {@code time.now()}; {@code null} restores the server's {@code TIME}. */
        public Builder scriptTime(TimeSource time) {
            this.scriptTime = time;
            return this;
        }

        /** @throws IllegalArgumentException naming the field when a value is out of range */
        public RedisIdempotencyConfig build() {
            return new RedisIdempotencyConfig(keyPrefix, operationTimeout, markerTtlFactor, scriptTime);
        }
    }
}
