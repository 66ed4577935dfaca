package dev.sluice.keys;

import dev.sluice.edge.keys.StoredKey;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * Where {@link CachingKeySource} reads keys on a miss: blocking calls, made on the cache's lookup threads,
 * never on an event loop. Errors: {@link dev.sluice.edge.keys.KeyAdministration.KeyStoreException}.
 */
public interface KeyBackend extends AutoCloseable {

    /** The live key with this hash, or empty (none, or revoked). */
    Optional<StoredKey> lookup(String keyHash);

    /** The live keys among {@code keyHashes}, by hash (a resynchronisation after missed notifications). */
    Map<String, StoredKey> lookupAll(Collection<String> keyHashes);

    /** Whether the store answers now (a cheap round trip). */
    boolean ping();

    @Override
    void close();
}
