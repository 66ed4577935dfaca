package dev.sluice.edge.keys;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The write side of a key store, for the admin API ({@code /admin/v1/keys}): every method does blocking
 * I/O and must be called off the event loop. A change becomes visible to every edge reading the same
 * store within a second (the store notifies its readers). Keys are addressed by their id, never by the
 * clear key, which exists only in the answer to {@link #create}. Thread-safe.
 *
 * <p>Plan and policy names are checked by the caller against the configuration; the store keeps names.
 * Errors: {@link KeyStoreException} when the store cannot be reached or refuses the change.
 */
public interface KeyAdministration {

    /**
     * A key's stored state.
     *
     * @param key the key as the edge resolves it (hash, id, plan, overrides, warning destination)
     * @param label a free-text note (who the key is for)
     * @param createdAt when it was created (the database's clock)
     * @param revokedAt when it was revoked, if it was: a revoked key is unknown to the edge
     */
    record KeyRecord(StoredKey key, Optional<String> label, Instant createdAt, Optional<Instant> revokedAt) {
        public KeyRecord {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(label, "label");
            Objects.requireNonNull(createdAt, "createdAt");
            Objects.requireNonNull(revokedAt, "revokedAt");
        }
    }

    /**
     * A key just made.
     *
     * @param apiKey the clear key: shown once, stored nowhere
     * @param record what was stored
     */
    record CreatedKey(String apiKey, KeyRecord record) {
    }

    /**
     * Makes a new random key on {@code plan}.
     *
     * @param renewalDay 1..31, or 0 for each policy's own anchor day
     * @param overrides the key's own {@code q} per policy name
     * @param label a note, or empty
     * @param warningDestination the key's own {@code quota.warning} destination, or empty for its plan's
     */
    CreatedKey create(String plan, int renewalDay, Map<String, Long> overrides, Optional<String> label,
            Optional<String> warningDestination);

    /** The key with id {@code keyId}, live or revoked. */
    Optional<KeyRecord> find(String keyId);

    /** Revokes it (idempotent: a revoked key keeps its first revocation time); empty when there is none. */
    Optional<KeyRecord> revoke(String keyId);

    /** Moves a live key to {@code plan}, keeping its overrides of policies the new plan also has. */
    Optional<KeyRecord> changePlan(String keyId, String plan);

    /** Sets (or with an empty {@code q}, removes) the key's own {@code q} for {@code policy}. */
    Optional<KeyRecord> setOverride(String keyId, String policy, OptionalLong q);

    /** A key store that could not do what was asked. */
    final class KeyStoreException extends RuntimeException {
        public KeyStoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
