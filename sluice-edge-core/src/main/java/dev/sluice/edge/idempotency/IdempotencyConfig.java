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
 *   on-store-unavailable: reject  # reject: 503 idempotency_store_unavailable; forward: without a record
 *   unavailable-retry-after: 1s   # Retry-After of that 503
 * }</pre>
 *
 * @param retention how long a recorded answer is replayed, &gt; 0
 * @param maxResponseBytes the largest response body recorded, ≥ 0
 * @param lease how long an in-flight marker lives if its request never ends; zero means derived from the
 *     upstream timeouts
 * @param store where records live, as configured; empty: the limiter store's kind (so replicas sharing a
 *     Redis also share their records, and a retry that lands on another replica is still replayed)
 * @param onStoreUnavailable what a request with an {@code Idempotency-Key} gets when the store cannot be
 *     reached (SPEC §3.11: forwarding it blindly could carry it out twice)
 * @param unavailableRetryAfter the {@code Retry-After} of the 503 {@code idempotency_store_unavailable}, ≥ 1 s
 */
public record IdempotencyConfig(Duration retention, int maxResponseBytes, Duration lease, Optional<Store> store,
        OnStoreUnavailable onStoreUnavailable, Duration unavailableRetryAfter) {

    /** What a request with an {@code Idempotency-Key} gets while the store cannot be reached. */
    public enum OnStoreUnavailable {
        /** 503 {@code idempotency_store_unavailable} with {@code Retry-After} (the default): never carried out twice. */
        REJECT,
        /** Forwarded without a record: a retry may be carried out again (for APIs that deduplicate themselves). */
        FORWARD
    }

    /** The {@code Retry-After} of a 503 {@code idempotency_store_unavailable} by default. */
    public static final Duration DEFAULT_UNAVAILABLE_RETRY_AFTER = Duration.ofSeconds(1);

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
        Objects.requireNonNull(onStoreUnavailable, "onStoreUnavailable");
        Objects.requireNonNull(unavailableRetryAfter, "unavailableRetryAfter");
        if (unavailableRetryAfter.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("unavailable-retry-after: must be >= 1s, was " + unavailableRetryAfter);
        }
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

    /** A store that cannot be reached is a 503 with {@code Retry-After: 1}. */
    public IdempotencyConfig(Duration retention, int maxResponseBytes, Duration lease, Optional<Store> store) {
        this(retention, maxResponseBytes, lease, store, OnStoreUnavailable.REJECT, DEFAULT_UNAVAILABLE_RETRY_AFTER);
    }

    public static IdempotencyConfig defaults() {
        return new IdempotencyConfig(DEFAULT_RETENTION, DEFAULT_MAX_RESPONSE_BYTES, Duration.ZERO);
    }
}
