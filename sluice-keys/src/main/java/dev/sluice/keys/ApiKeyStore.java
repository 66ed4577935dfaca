package dev.sluice.keys;

import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.edge.keys.KeyHashing;
import java.util.Optional;

/**
 * A key store the edge can run on: what its cache reads ({@link KeyBackend}) and what the admin API writes
 * ({@link KeyAdministration}), over one set of connections. Two exist: {@link dev.sluice.keys.jdbc.PostgresKeyStore}
 * (a table, {@code LISTEN/NOTIFY}) and {@link dev.sluice.keys.redis.RedisKeyStore} (a hash per key, pub/sub);
 * {@link KeyStores#open} picks one by the URL. Both store a key's {@link KeyHashing} digest, never the key.
 * Thread-safe.
 */
public interface ApiKeyStore extends KeyBackend, KeyAdministration {

    /** The hashing keys are stored under (SHA-256, or HMAC-SHA-256 under {@code hash-secret}). */
    KeyHashing hashing();

    /** Where the store is, for log lines: the URL without a password or query string. */
    String redacted();

    /**
     * Sets (or with empty, clears) a key's own {@code quota.warning} destination, live or revoked.
     *
     * @return the key as stored after the change, or empty when no key has id {@code keyId}
     * @throws KeyStoreException when the store cannot be reached
     */
    Optional<KeyRecord> setWarningDestination(String keyId, Optional<String> destination);
}
