package dev.sluice.edge.keys;

import java.util.concurrent.CompletableFuture;

/**
 * Where the edge finds the API keys that its configuration file does not list (a database, a Redis
 * hash): the seam between the decision and a key store, so {@code sluice-edge-core} needs no JDBC
 * driver. Keys of the file's {@code keys} section are found first; a token that is not there is looked
 * up here.
 *
 * <p>Contract: {@link #lookup} is called on an event loop and must not block. A token the source has in
 * memory is answered by an already-completed future (the edge then goes on at once, on the same
 * thread); any other is looked up off the calling thread and the future completed there later. The
 * future never completes exceptionally: a store that cannot answer gives {@link KeyLookup.Unavailable}.
 * Thread-safe.
 */
public interface KeySource extends AutoCloseable {

    /**
     * The key for the bearer token {@code apiKey}.
     *
     * @param apiKey the token as the client sent it (RFC 6750 {@code b64token}); the source hashes it
     *     ({@link KeyHashing}) and keeps no clear copy
     */
    CompletableFuture<KeyLookup> lookup(String apiKey);

    /** Stops background work (listeners, pools). */
    @Override
    void close();
}
