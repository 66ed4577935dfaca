package dev.sluice.keys;

import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.keys.jdbc.PostgresKeyStore;
import dev.sluice.keys.redis.RedisKeyStore;
import dev.sluice.time.TimeSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running key store for the edge, in PostgreSQL ({@link PostgresKeyStore}) or Redis ({@link RedisKeyStore}) as
 * the URL says: the cache the decision reads ({@link #source()}), the write side for the admin API
 * ({@link #administration()}) and the change feed ({@code LISTEN/NOTIFY}, or pub/sub). Build it with
 * {@link #open}. An edge given {@link #source()} closes it, and with it everything here, when it closes;
 * {@link #close()} does the same for a store used without an edge.
 *
 * <pre>{@code
 * KeyStores keys = KeyStores.open(KeyStoreConfig.of("jdbc:postgresql://127.0.0.1/sluice?user=sluice"),
 *         KeyIds.DEFAULT, TimeSource.system());
 * EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults().withKeySource(keys.source())
 *         .withKeyAdministration(keys.administration()));
 * }</pre>
 * With {@code KeyStoreConfig.of("redis://127.0.0.1:6379")} (or a {@code redis-cluster://} or
 * {@code redis-sentinel://} URL) the same keys live in Redis.
 */
public final class KeyStores implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KeyStores.class);

    private final ApiKeyStore store;
    private final CachingKeySource source;

    private KeyStores(ApiKeyStore store, CachingKeySource source) {
        this.store = store;
        this.source = source;
    }

    /**
     * Opens the store the URL names (a {@code jdbc:postgresql:} URL: PostgreSQL; a Redis URL: Redis), checks it
     * answers, starts the change feed.
     *
     * @throws KeyAdministration.KeyStoreException when it does not answer and {@code on-unavailable-at-start}
     *     is {@code refuse}, or when Redis is deployed otherwise than its URL says (the message is the one line
     *     to print)
     */
    public static KeyStores open(KeyStoreConfig config, KeyIds ids, TimeSource time) {
        ApiKeyStore store = config.redis() ? RedisKeyStore.open(config, ids) : PostgresKeyStore.open(config, ids);
        if (!store.ping()) {
            if (config.onUnavailableAtStart() == KeyStoreConfig.AtStart.REFUSE) {
                store.close();
                throw new KeyAdministration.KeyStoreException("key store " + store.redacted()
                        + " does not answer; not starting (key-store.on-unavailable-at-start: refuse)", null);
            }
            LOG.warn("key store {} does not answer; starting degraded: keys not in memory get 503 "
                    + "key_store_unavailable until it does (key-store.on-unavailable-at-start: degraded)",
                    store.redacted());
        } else {
            LOG.info("key store {} up (keys hashed with {})", store.redacted(), store.hashing().algorithm());
        }
        CachingKeySource source = new CachingKeySource(store, store.hashing(), config, time);
        store.watch(source);
        return new KeyStores(store, source);
    }

    /** The cache the edge's decision reads. */
    public CachingKeySource source() {
        return source;
    }

    /** The write side (admin API): the store itself. */
    public ApiKeyStore administration() {
        return store;
    }

    /** Whether change notifications are being received now. */
    public boolean listening() {
        return store.watching();
    }

    /**
     * Closes the cache, the store's connections and its change feed (what an edge given {@link #source()}
     * does when it closes). Idempotent.
     */
    @Override
    public void close() {
        source.close();
    }
}
