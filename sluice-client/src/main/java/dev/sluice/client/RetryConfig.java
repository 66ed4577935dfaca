package dev.sluice.client;

import java.time.Duration;
import java.util.Objects;

/**
 * How one call is retried (SPEC §4.2–§4.4). Immutable; build with {@link #builder()}.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>rule</th></tr>
 *   <tr><td>{@code maxAttempts}</td><td>3</td><td>attempts per call, first included (§4.2)</td></tr>
 *   <tr><td>{@code backoffBase}</td><td>0.5 s</td><td>full jitter {@code U(0, min(cap, base·2^attempt))} when the
 *       server gave no hint (§4.3)</td></tr>
 *   <tr><td>{@code backoffCap}</td><td>20 s</td><td>the cap of that formula (§4.3)</td></tr>
 *   <tr><td>{@code jitterFloor}</td><td>1 s</td><td>with a hint {@code ra}: wait {@code ra + U(0, J)},
 *       {@code J = min(jitterCeiling, max(jitterFloor, ra))} (§4.3)</td></tr>
 *   <tr><td>{@code jitterCeiling}</td><td>20 s</td><td>as above</td></tr>
 *   <tr><td>{@code maxWait}</td><td>60 s</td><td>a hint longer than this is not waited for: the call fails at once with
 *       the hint (§2.4; R03); the jitter is drawn within what fits, so no wait exceeds it nor passes the call's
 *       deadline, while a hint that fits is always waited in full</td></tr>
 *   <tr><td>{@code resetMargin}</td><td>1 s</td><td>added to waits derived from a policy's <em>absolute</em> reset
 *       (epoch, RFC 3339) rather than from Retry-After, so that the window has surely rolled over at the server
 *       (R04; {@code RateLimitSnapshot.suggestedWait}); R04 asks for at least 1 s</td></tr>
 *   <tr><td>{@code maxAttemptsPerIdempotencyKey}</td><td>5</td><td>total attempts one Idempotency-Key may use across
 *       the caller's repeated calls (§4.4)</td></tr>
 *   <tr><td>{@code mintIdempotencyKeys}</td><td>true</td><td>give every non-idempotent request a UUID key unless the
 *       caller set one (§4.4); turn off only for an API that ignores the header</td></tr>
 *   <tr><td>{@code idempotencyKeyHeader}</td><td>{@code Idempotency-Key}</td><td>the field name</td></tr>
 * </table>
 */
public record RetryConfig(
        int maxAttempts,
        Duration backoffBase,
        Duration backoffCap,
        Duration jitterFloor,
        Duration jitterCeiling,
        Duration maxWait,
        Duration resetMargin,
        int maxAttemptsPerIdempotencyKey,
        boolean mintIdempotencyKeys,
        String idempotencyKeyHeader) {

    public RetryConfig {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be >= 1: " + maxAttempts);
        }
        positive(backoffBase, "backoffBase");
        positive(backoffCap, "backoffCap");
        nonNegative(jitterFloor, "jitterFloor");
        nonNegative(jitterCeiling, "jitterCeiling");
        if (jitterCeiling.compareTo(jitterFloor) < 0) {
            throw new IllegalArgumentException("jitterCeiling must be >= jitterFloor");
        }
        positive(maxWait, "maxWait");
        nonNegative(resetMargin, "resetMargin");
        if (maxAttemptsPerIdempotencyKey < 1) {
            throw new IllegalArgumentException(
                    "maxAttemptsPerIdempotencyKey must be >= 1: " + maxAttemptsPerIdempotencyKey);
        }
        Objects.requireNonNull(idempotencyKeyHeader, "idempotencyKeyHeader");
        if (idempotencyKeyHeader.isBlank()) {
            throw new IllegalArgumentException("idempotencyKeyHeader must not be blank");
        }
    }

    /** The defaults of SPEC §4.2–§4.4 (see the class table). */
    public static RetryConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.maxAttempts = maxAttempts;
        b.backoffBase = backoffBase;
        b.backoffCap = backoffCap;
        b.jitterFloor = jitterFloor;
        b.jitterCeiling = jitterCeiling;
        b.maxWait = maxWait;
        b.resetMargin = resetMargin;
        b.maxAttemptsPerIdempotencyKey = maxAttemptsPerIdempotencyKey;
        b.mintIdempotencyKeys = mintIdempotencyKeys;
        b.idempotencyKeyHeader = idempotencyKeyHeader;
        return b;
    }

    static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive: " + d);
        }
    }

    static void nonNegative(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative: " + d);
        }
    }

    /** Fluent builder; not thread-safe. Validation happens in {@link #build()}. */
    public static final class Builder {
        private int maxAttempts = 3;
        private Duration backoffBase = Duration.ofMillis(500);
        private Duration backoffCap = Duration.ofSeconds(20);
        private Duration jitterFloor = Duration.ofSeconds(1);
        private Duration jitterCeiling = Duration.ofSeconds(20);
        private Duration maxWait = Duration.ofSeconds(60);
        private Duration resetMargin = Duration.ofSeconds(1);
        private int maxAttemptsPerIdempotencyKey = 5;
        private boolean mintIdempotencyKeys = true;
        private String idempotencyKeyHeader = "Idempotency-Key";

        private Builder() {
        }

        public Builder maxAttempts(int v) { this.maxAttempts = v; return this; }
        public Builder backoffBase(Duration v) { this.backoffBase = v; return this; }
        public Builder backoffCap(Duration v) { this.backoffCap = v; return this; }
        public Builder jitterFloor(Duration v) { this.jitterFloor = v; return this; }
        public Builder jitterCeiling(Duration v) { this.jitterCeiling = v; return this; }
        public Builder maxWait(Duration v) { this.maxWait = v; return this; }
        public Builder resetMargin(Duration v) { this.resetMargin = v; return this; }
        public Builder maxAttemptsPerIdempotencyKey(int v) { this.maxAttemptsPerIdempotencyKey = v; return this; }
        public Builder mintIdempotencyKeys(boolean v) { this.mintIdempotencyKeys = v; return this; }
        public Builder idempotencyKeyHeader(String v) { this.idempotencyKeyHeader = v; return this; }

        /** @throws IllegalArgumentException naming the first invalid setting */
        public RetryConfig build() {
            return new RetryConfig(maxAttempts, backoffBase, backoffCap, jitterFloor, jitterCeiling,
                    maxWait, resetMargin, maxAttemptsPerIdempotencyKey, mintIdempotencyKeys,
                    idempotencyKeyHeader);
        }
    }
}
