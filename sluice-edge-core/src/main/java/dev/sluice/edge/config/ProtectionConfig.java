package dev.sluice.edge.config;

import dev.sluice.edge.escalation.EscalationConfig;
import dev.sluice.edge.idempotency.IdempotencyConfig;
import dev.sluice.edge.shedding.SheddingConfig;
import java.util.Objects;
import java.util.Optional;

/**
 * The edge's protection sections (SPEC §3.9, §3.11, §3.12): {@code shedding:},
 * {@code idempotency:} and {@code escalation:}. Fixed at start (a reload keeps the running ones).
 * Immutable.
 *
 * @param shedding the shedder; empty: the defaults for the upstream pool size
 * @param idempotency the replay stage
 * @param escalation the retry-loop stage
 */
public record ProtectionConfig(Optional<SheddingConfig> shedding, IdempotencyConfig idempotency,
        EscalationConfig escalation) {

    public static final ProtectionConfig DEFAULT = new ProtectionConfig(Optional.empty(), IdempotencyConfig.defaults(),
            EscalationConfig.defaults());

    public ProtectionConfig {
        Objects.requireNonNull(shedding, "shedding");
        Objects.requireNonNull(idempotency, "idempotency");
        Objects.requireNonNull(escalation, "escalation");
    }

    /** The shedding settings for an upstream pool of {@code poolSize}. */
    public SheddingConfig sheddingFor(int poolSize) {
        return shedding.orElseGet(() -> SheddingConfig.defaults(poolSize));
    }
}
