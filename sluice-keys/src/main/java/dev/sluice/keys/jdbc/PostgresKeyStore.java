package dev.sluice.keys.jdbc;

import dev.sluice.keys.internal.ChangeFeed;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.edge.keys.StoredKey;
import dev.sluice.keys.ApiKeyStore;
import dev.sluice.keys.KeyBackend;
import dev.sluice.keys.KeyChanges;
import dev.sluice.keys.KeyStoreConfig;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API keys in a PostgreSQL table ({@code sluice_api_keys}, versioned migrations in
 * {@code sluice_keys_schema_version}), stored hashed ({@link KeyHashing}), never in clear. Reads for the
 * edge's cache ({@link KeyBackend}) and writes for the admin API ({@link KeyAdministration}); every write
 * fires a trigger that sends {@code NOTIFY sluice_keys} with the key's hash, which the listener that
 * {@link #watch} starts turns into a cache refresh on every edge.
 *
 * <p>Connections: a HikariCP pool that may start while the database is down (the edge then runs degraded
 * if so configured); the schema is migrated on the first successful connection. Thread-safe.
 */
public final class PostgresKeyStore implements ApiKeyStore {

    private static final Logger LOG = LoggerFactory.getLogger(PostgresKeyStore.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int KEY_BYTES = 24;
    /** the notification channel of the trigger in V1 */
    static final String CHANNEL = "sluice_keys";
    private static final String COLUMNS = "key_hash, key_id, plan, renewal_day, overrides::text, warning_destination, "
            + "label, created_at, revoked_at";

    private final KeyStoreConfig config;
    private final KeyHashing hashing;
    private final KeyIds ids;
    private final HikariDataSource pool;
    private final String prefix;
    private volatile boolean migrated;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile ChangeFeed listener;

    private PostgresKeyStore(KeyStoreConfig config, KeyHashing hashing, KeyIds ids, HikariDataSource pool) {
        this.config = config;
        this.hashing = hashing;
        this.ids = ids;
        this.pool = pool;
        this.prefix = config.schema().map(s -> "\"" + s + "\".").orElse("");
    }

    /**
     * Opens the pool (it does not wait for the database) and tries to migrate the schema once.
     *
     * @param ids the edge's key ids ({@code key-id-secret}), used for new keys
     * @return the store; {@link #ping()} tells whether the database answered
     */
    public static PostgresKeyStore open(KeyStoreConfig config, KeyIds ids) {
        HikariConfig h = new HikariConfig();
        h.setJdbcUrl(config.url());
        config.user().ifPresent(h::setUsername);
        config.password().ifPresent(h::setPassword);
        h.setMaximumPoolSize(config.poolSize() + 1);
        h.setMinimumIdle(1);
        h.setPoolName("sluice-keys");
        h.setConnectionTimeout(Math.max(250, config.lookupTimeout().toMillis()));
        h.setValidationTimeout(Math.max(250, Math.min(config.lookupTimeout().toMillis(), 1000)));
        h.setInitializationFailTimeout(-1); // start while the database is down; misses answer 503 meanwhile
        h.addDataSourceProperty("socketTimeout", Math.max(1, config.lookupTimeout().toSeconds() * 5));
        h.addDataSourceProperty("connectTimeout", Math.max(1, config.lookupTimeout().toSeconds()));
        h.addDataSourceProperty("ApplicationName", "sluice-edge keys");
        PostgresKeyStore store = new PostgresKeyStore(config, new KeyHashing(config.hashSecret()), ids,
                new HikariDataSource(h));
        try {
            store.ensureMigrated();
        } catch (KeyStoreException e) {
            LOG.debug("key store not migrated at open: {}", e.getMessage());
        }
        return store;
    }

    @Override
    public KeyHashing hashing() {
        return hashing;
    }

    KeyStoreConfig config() {
        return config;
    }

    /** A dedicated connection for LISTEN (not from the pool: it stays open). */
    Connection listenConnection() throws SQLException {
        Properties p = new Properties();
        config.user().ifPresent(u -> p.setProperty("user", u));
        config.password().ifPresent(pw -> p.setProperty("password", pw));
        p.setProperty("connectTimeout", String.valueOf(Math.max(1, config.lookupTimeout().toSeconds())));
        p.setProperty("tcpKeepAlive", "true");
        p.setProperty("ApplicationName", "sluice-edge key notifications");
        return DriverManager.getConnection(config.url(), p);
    }

    /** The payload prefix of this store's notifications: the table's schema, and a colon. */
    String notificationPrefix(Connection c) throws SQLException {
        if (config.schema().isPresent()) {
            return config.schema().get() + ":";
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT current_schema()"); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getString(1) + ":";
        }
    }

    /** Migrates the schema if it was not yet. */
    public void ensureMigrated() {
        if (migrated) {
            return;
        }
        synchronized (this) {
            if (migrated) {
                return;
            }
            try (Connection c = pool.getConnection()) {
                int v = KeyMigrations.apply(c, prefix, config.schema().orElse(null));
                migrated = true;
                LOG.debug("key store schema at version {}", v);
            } catch (SQLException e) {
                throw new KeyStoreException("key store " + redacted() + " unavailable: " + e.getMessage(), e);
            }
        }
    }

    /** The URL without its query string (it may carry a password). */
    @Override
    public String redacted() {
        String u = config.url();
        int q = u.indexOf('?');
        return q < 0 ? u : u.substring(0, q);
    }

    @Override
    public boolean ping() {
        try {
            ensureMigrated();
            try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT 1")) {
                ps.executeQuery().close();
                return true;
            }
        } catch (SQLException | KeyStoreException e) {
            return false;
        }
    }

    // ---- reads ----------------------------------------------------------------------------------------

    @Override
    public Optional<StoredKey> lookup(String keyHash) {
        return query("SELECT " + COLUMNS + " FROM " + prefix + "sluice_api_keys WHERE key_hash = ? AND revoked_at "
                + "IS NULL", ps -> ps.setString(1, keyHash), rs -> rs.next() ? Optional.of(row(rs).key())
                        : Optional.<StoredKey>empty());
    }

    @Override
    public Map<String, StoredKey> lookupAll(Collection<String> keyHashes) {
        Map<String, StoredKey> out = new HashMap<>();
        Iterator<String> it = keyHashes.iterator();
        while (it.hasNext()) {
            List<String> batch = new ArrayList<>(500);
            while (it.hasNext() && batch.size() < 500) {
                batch.add(it.next());
            }
            out.putAll(query("SELECT " + COLUMNS + " FROM " + prefix + "sluice_api_keys WHERE key_hash = ANY(?) AND "
                    + "revoked_at IS NULL", ps -> ps.setArray(1, ps.getConnection().createArrayOf("text",
                            batch.toArray())), rs -> {
                        Map<String, StoredKey> m = new HashMap<>();
                        while (rs.next()) {
                            StoredKey k = row(rs).key();
                            m.put(k.keyHash(), k);
                        }
                        return m;
                    }));
        }
        return out;
    }

    @Override
    public Optional<KeyRecord> find(String keyId) {
        return query("SELECT " + COLUMNS + " FROM " + prefix + "sluice_api_keys WHERE key_id = ?",
                ps -> ps.setString(1, keyId), rs -> rs.next() ? Optional.of(row(rs)) : Optional.<KeyRecord>empty());
    }

    // ---- writes ---------------------------------------------------------------------------------------

    @Override
    public CreatedKey create(String plan, int renewalDay, Map<String, Long> overrides, Optional<String> label,
            Optional<String> warningDestination) {
        for (int attempt = 0; ; attempt++) {
            byte[] raw = new byte[KEY_BYTES];
            RANDOM.nextBytes(raw);
            String apiKey = "sk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
            String id = ids.id(apiKey);
            try {
                KeyRecord r = query("INSERT INTO " + prefix + "sluice_api_keys (key_hash, key_id, plan, renewal_day, "
                        + "overrides, warning_destination, label) VALUES (?, ?, ?, ?, ?::jsonb, ?, ?) RETURNING "
                        + COLUMNS,
                        ps -> {
                            ps.setString(1, hashing.hash(apiKey));
                            ps.setString(2, id);
                            ps.setString(3, plan);
                            ps.setInt(4, renewalDay);
                            ps.setString(5, overridesJson(overrides));
                            ps.setString(6, warningDestination.orElse(null));
                            ps.setString(7, label.orElse(null));
                        }, rs -> {
                            rs.next();
                            return row(rs);
                        });
                return new CreatedKey(apiKey, r);
            } catch (KeyStoreException e) {
                // a 48-bit id collision (unique key_id) is retried with a new key; anything else is not
                if (attempt < 3 && e.getCause() instanceof SQLException s && "23505".equals(s.getSQLState())) {
                    continue;
                }
                throw e;
            }
        }
    }

    @Override
    public Optional<KeyRecord> revoke(String keyId) {
        return update("UPDATE " + prefix + "sluice_api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE "
                + "key_id = ? RETURNING " + COLUMNS, ps -> ps.setString(1, keyId));
    }

    @Override
    public Optional<KeyRecord> changePlan(String keyId, String plan) {
        return update("UPDATE " + prefix + "sluice_api_keys SET plan = ? WHERE key_id = ? AND revoked_at IS NULL "
                + "RETURNING " + COLUMNS, ps -> {
                    ps.setString(1, plan);
                    ps.setString(2, keyId);
                });
    }

    @Override
    public Optional<KeyRecord> setOverride(String keyId, String policy, OptionalLong q) {
        String sql = q.isPresent()
                ? "UPDATE " + prefix + "sluice_api_keys SET overrides = jsonb_set(overrides, ARRAY[?], "
                        + "to_jsonb(?::bigint)) WHERE key_id = ? AND revoked_at IS NULL RETURNING " + COLUMNS
                : "UPDATE " + prefix + "sluice_api_keys SET overrides = overrides - ? WHERE key_id = ? AND "
                        + "revoked_at IS NULL RETURNING " + COLUMNS;
        return update(sql, ps -> {
            int i = 1;
            ps.setString(i++, policy);
            if (q.isPresent()) {
                ps.setLong(i++, q.getAsLong());
            }
            ps.setString(i, keyId);
        });
    }

    @Override
    public Optional<KeyRecord> setWarningDestination(String keyId, Optional<String> url) {
        return update("UPDATE " + prefix + "sluice_api_keys SET warning_destination = ? WHERE key_id = ? RETURNING "
                + COLUMNS, ps -> {
                    ps.setString(1, url.orElse(null));
                    ps.setString(2, keyId);
                });
    }

    private Optional<KeyRecord> update(String sql, Binder binder) {
        return query(sql, binder, rs -> rs.next() ? Optional.of(row(rs)) : Optional.<KeyRecord>empty());
    }

    @Override
    public synchronized void watch(KeyChanges changes) {
        if (listener != null) {
            throw new IllegalStateException("already watched");
        }
        if (closed.get()) {
            throw new IllegalStateException("closed");
        }
        listener = new KeyChangeListener(this, changes);
        listener.start();
    }

    @Override
    public boolean watching() {
        ChangeFeed l = listener;
        return l != null && l.listening();
    }

    /** Stops the listener (its thread and connection), then closes the pool. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ChangeFeed l;
        synchronized (this) {
            l = listener;
        }
        if (l != null) {
            l.close();
        }
        pool.close();
    }

    // ---- plumbing -------------------------------------------------------------------------------------

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    @FunctionalInterface
    private interface Reader<T> {
        T read(ResultSet rs) throws SQLException;
    }

    private <T> T query(String sql, Binder binder, Reader<T> reader) {
        ensureMigrated();
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setQueryTimeout((int) Math.max(1, config.lookupTimeout().toSeconds() * 5));
            binder.bind(ps);
            if (ps.execute()) {
                try (ResultSet rs = ps.getResultSet()) {
                    return reader.read(rs);
                }
            }
            throw new SQLException("no result set");
        } catch (SQLException e) {
            throw new KeyStoreException("key store " + redacted() + ": " + e.getMessage(), e);
        }
    }

    private static KeyRecord row(ResultSet rs) throws SQLException {
        Map<String, Long> overrides = parseOverrides(rs.getString(5));
        StoredKey key = new StoredKey(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), overrides,
                Optional.ofNullable(rs.getString(6)));
        Timestamp revoked = rs.getTimestamp(9);
        return new KeyRecord(key, Optional.ofNullable(rs.getString(7)), rs.getTimestamp(8).toInstant(),
                Optional.ofNullable(revoked).map(Timestamp::toInstant));
    }

    /** {@code {"daily": 500}} → policy → q. Also reads {@code {"daily": {"q": 500}}}. */
    static Map<String, Long> parseOverrides(String json) throws SQLException {
        if (json == null || json.isBlank()) {
            return Map.of();
        }
        try {
            JsonNode n = JSON.readTree(json);
            Map<String, Long> out = new TreeMap<>();
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                JsonNode v = e.getValue().isObject() ? e.getValue().get("q") : e.getValue();
                if (v == null || !v.canConvertToLong() || v.asLong() < 1) {
                    throw new SQLException("overrides." + e.getKey() + ": a q ≥ 1, was " + e.getValue());
                }
                out.put(e.getKey(), v.asLong());
            }
            return out;
        } catch (JsonProcessingException e) {
            throw new SQLException("overrides: not JSON: " + e.getOriginalMessage(), e);
        }
    }

    static String overridesJson(Map<String, Long> overrides) {
        ObjectNode o = JSON.createObjectNode();
        overrides.forEach(o::put);
        return o.toString();
    }
}
