package dev.sluice.keys;

import dev.sluice.edge.keys.StoredKey;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Where {@link CachingKeySource} reads keys on a miss (blocking calls, made on the cache's lookup threads,
 * never on an event loop), and the feed of changes that keeps it current. Errors:
 * {@link dev.sluice.edge.keys.KeyAdministration.KeyStoreException}.
 */
public interface KeyBackend extends AutoCloseable {

    /** The live key with this hash, or empty (none, or revoked). */
    Optional<StoredKey> lookup(String keyHash);

    /** The live keys among {@code keyHashes}, by hash (a resynchronisation after missed notifications). */
    Map<String, StoredKey> lookupAll(Collection<String> keyHashes);

    /** Whether the store answers now (a cheap round trip). */
    boolean ping();

    /**
     * Starts telling {@code changes} of every change of a key (each within a second), on a thread of the
     * backend's own, until {@link #close()}; after the feed was down, {@link KeyChanges#resync()} is called
     * once it is back. Returns at once. Called once.
     */
    void watch(KeyChanges changes);

    /** Whether the change feed of {@link #watch} is up now. */
    boolean watching();

    /** Stops the change feed and closes the connections; idempotent. */
    @Override
    void close();
}
