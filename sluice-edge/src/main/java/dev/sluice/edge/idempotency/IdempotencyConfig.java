package dev.sluice.edge.idempotency;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code idempotency:} section (SPEC §3.11). Immutable.
 *
 * <pre>{@code
 * idempotency:
 *   retention: 24h              # how long an answer is kept for replay
 *   max-response-bytes: 65536   # larger answers are recorded as "not replayable" (a retry gets 409)
 *   lease: 0s                   # in-flight marker lifetime; 0 = upstream connect + response timeout + 5 s
 *   store: redis                # where records live: memory, or redis (the store section's Redis);
 *                               # default: redis when the store section is Redis, else memory
 * }</pre>
 *
 * @param retention how long a recorded answer is replayed, &gt; 0
 * @param maxResponseBytes the largest response body recorded, ≥ 0
 * @param lease how long an in-flight marker lives if its request never ends; zero means derived from the
 *     upstream timeouts
 * @param store where records live, as configured; empty: the limiter store's kind (so replicas sharing a
 *     Redis also share their records, and a retry that lands on another replica is still replayed)
 */
public record IdempotencyConfig(Duration retention, int maxResponseBytes, Duration lease, Optional<Store> store) {

    /** Where records live (SPEC §3.11 across replicas, §3.14). */
    public enum Store {
        /** This process's memory: a retry must come back to the same replica to be replayed. */
        MEMORY,
        /** The Redis of the {@code store} section, shared by every replica. */
        REDIS
    }

    /** SPEC §3.11: records expire after 24 h by default. */
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);
    public static final int DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

    public IdempotencyConfig {
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(lease, "lease");
        Objects.requireNonNull(store, "store");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention: must be > 0, was " + retention);
        }
        if (maxResponseBytes < 0) {
            throw new IllegalArgumentException("max-response-bytes: must be >= 0, was " + maxResponseBytes);
        }
        if (lease.isNegative()) {
            throw new IllegalArgumentException("lease: must be >= 0, was " + lease);
        }
    }

    /** Records wherever the limiter store keeps its state. */
    public IdempotencyConfig(Duration retention, int maxResponseBytes, Duration lease) {
        this(retention, maxResponseBytes, lease, Optional.empty());
    }

    public static IdempotencyConfig defaults() {
        return new IdempotencyConfig(DEFAULT_RETENTION, DEFAULT_MAX_RESPONSE_BYTES, Duration.ZERO);
    }
}
