package dev.sluice.keys;

import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.redis.RedisUrl;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The edge file's {@code key-store} section: API keys and their plan bindings in PostgreSQL or in Redis rather
 * than in the file (plans stay in the file; a key names one). The URL says which store:
 *
 * <pre>{@code
 * key-store:
 *   url: jdbc:postgresql://127.0.0.1:5432/sluice?user=sluice   # PostgreSQL (JDBC URL) or Redis (below)
 *   user: sluice                     # optional; PostgreSQL only (Redis: in the URL)
 *   password: secret                 # optional; PostgreSQL only (Redis: in the URL)
 *   schema: public                   # PostgreSQL only: the tables' schema, created if missing
 *   key-prefix: sluice:keys          # Redis only: the hash tag of the store's Redis keys and its channel
 *   hash-secret: "..."               # HMAC-SHA-256 of keys under this secret; absent: SHA-256
 *   cache-size: 100000               # keys kept in memory (a hit does no I/O)
 *   unknown-cache-size: 100000       # unknown tokens remembered as unknown ...
 *   unknown-ttl: 30s                 # ... this long (a key created meanwhile is seen at once: NOTIFY, pub/sub)
 *   miss-lookups-per-second: 200     # most store lookups of tokens not in memory; past it: 503
 *   pool-size: 4                     # lookup threads (and, on PostgreSQL, database connections)
 *   lookup-timeout: 1s               # longest wait for a connection / the query
 *   unavailable-retry-after: 1s      # Retry-After of a 503 key_store_unavailable
 *   on-unavailable-at-start: refuse  # or degraded: start, answer 503 to keys not in memory until it is up
 * }</pre>
 *
 * <p>A Redis store's URL is any {@link RedisUrl} form: {@code redis://[user:password@]host:6379[/db]},
 * {@code rediss://…}, {@code redis-cluster://host:7000,host:7001}, {@code redis-sentinel://host:26379#mymaster}.
 *
 * @param url the JDBC URL ({@code jdbc:postgresql://…}) or a Redis URL ({@link RedisUrl})
 * @param user the database user, if not in the URL (PostgreSQL only)
 * @param password the database password, if not in the URL (PostgreSQL only)
 * @param schema the tables' schema, or empty for the connection's default (PostgreSQL only)
 * @param keyPrefix the prefix of the store's Redis keys and channel, or empty for {@code sluice:keys} (Redis
 *     only): letters, digits and {@code : _ . -}, at most 64
 * @param hashSecret the HMAC secret keys are hashed under, or empty for SHA-256
 * @param cacheSize the most keys held in memory, ≥ 1
 * @param unknownCacheSize the most unknown tokens remembered, ≥ 0
 * @param unknownTtl how long an unknown token is remembered
 * @param missLookupsPerSecond the budget of lookups of tokens not in memory, per second, ≥ 1
 * @param poolSize lookup threads (and PostgreSQL connections for them), ≥ 1
 * @param lookupTimeout the longest wait for a connection and for one lookup
 * @param unavailableRetryAfter the {@code Retry-After} of a 503 {@code key_store_unavailable}
 * @param onUnavailableAtStart what the edge does when the store does not answer at start
 */
public record KeyStoreConfig(String url, Optional<String> user, Optional<String> password, Optional<String> schema,
        Optional<String> keyPrefix, Optional<String> hashSecret, int cacheSize, int unknownCacheSize, Duration unknownTtl,
        int missLookupsPerSecond, int poolSize, Duration lookupTimeout, Duration unavailableRetryAfter,
        AtStart onUnavailableAtStart) {

    /** What to do when the key store does not answer at start. */
    public enum AtStart {
        /** Do not start (one line naming the store). */
        REFUSE,
        /** Start; keys not in memory get 503 {@code key_store_unavailable} until the store answers. */
        DEGRADED
    }

    /** The key prefix of a Redis store when none is set. */
    public static final String DEFAULT_KEY_PREFIX = "sluice:keys";
    private static final String KEY_PREFIX_SYNTAX = "[A-Za-z0-9:_.-]{1,64}";
    private static final Set<String> FIELDS = new LinkedHashSet<>(List.of("url", "user", "password", "schema",
            "key-prefix", "hash-secret", "cache-size", "unknown-cache-size", "unknown-ttl", "miss-lookups-per-second",
            "pool-size", "lookup-timeout", "unavailable-retry-after", "on-unavailable-at-start"));

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field: a URL neither PostgreSQL nor Redis, a setting of the
     *     other kind of store, a key prefix out of its syntax, a size or budget below 1
     */
    public KeyStoreConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(keyPrefix, "keyPrefix");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(hashSecret, "hashSecret");
        Objects.requireNonNull(unknownTtl, "unknownTtl");
        Objects.requireNonNull(lookupTimeout, "lookupTimeout");
        Objects.requireNonNull(unavailableRetryAfter, "unavailableRetryAfter");
        Objects.requireNonNull(onUnavailableAtStart, "onUnavailableAtStart");
        Optional<String> wrong = urlProblem(url);
        if (wrong.isPresent()) {
            throw new IllegalArgumentException("url: " + wrong.get());
        }
        if (isRedis(url)) {
            if (user.isPresent() || password.isPresent() || schema.isPresent()) {
                throw new IllegalArgumentException("user, password and schema are PostgreSQL settings: a Redis "
                        + "store takes its user and password in the URL");
            }
        } else if (keyPrefix.isPresent()) {
            throw new IllegalArgumentException("key-prefix is a Redis setting");
        }
        if (keyPrefix.isPresent() && !keyPrefix.get().matches(KEY_PREFIX_SYNTAX)) {
            throw new IllegalArgumentException("key-prefix: letters, digits and : _ . -, at most 64, was \""
                    + keyPrefix.get() + "\"");
        }
        if (cacheSize < 1 || unknownCacheSize < 0 || missLookupsPerSecond < 1 || poolSize < 1) {
            throw new IllegalArgumentException("cache-size, miss-lookups-per-second and pool-size must be ≥ 1");
        }
    }

    /**
     * Defaults for everything but the URL.
     *
     * @throws IllegalArgumentException when {@code url} is neither a PostgreSQL JDBC URL nor a Redis URL
     */
    public static KeyStoreConfig of(String url) {
        return new KeyStoreConfig(url, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                100_000, 100_000, Duration.ofSeconds(30), 200, 4, Duration.ofSeconds(1),
                Duration.ofSeconds(1), AtStart.REFUSE);
    }

    /** Whether {@code url} names a Redis store (any {@link RedisUrl} scheme) rather than PostgreSQL. */
    public static boolean isRedis(String url) {
        return url.strip().toLowerCase(java.util.Locale.ROOT).matches("rediss?(-cluster|-sentinel)?://.*");
    }

    /** Whether this store is in Redis ({@link #isRedis(String)}). */
    public boolean redis() {
        return isRedis(url);
    }

    /** The Redis store's key prefix: {@link #keyPrefix()} or {@value #DEFAULT_KEY_PREFIX}. */
    public String effectiveKeyPrefix() {
        return keyPrefix.orElse(DEFAULT_KEY_PREFIX);
    }

    /** What is wrong with {@code url} as a key store's URL, one clause, or empty when it is usable. */
    private static Optional<String> urlProblem(String url) {
        String u = url.strip();
        if (u.startsWith("jdbc:postgresql:")) {
            return Optional.empty();
        }
        if (isRedis(u)) {
            try {
                RedisUrl.parse(u);
                return Optional.empty();
            } catch (IllegalArgumentException e) {
                return Optional.of(e.getMessage());
            }
        }
        return Optional.of("a jdbc:postgresql://host:5432/database or redis://host:6379 URL (also "
                + "redis-cluster://, redis-sentinel://…#master, rediss://), was \"" + RedisUrl.masked(u) + "\"");
    }

    /** This configuration with the tables in {@code newSchema} (PostgreSQL). */
    public KeyStoreConfig withSchema(String newSchema) {
        return new KeyStoreConfig(url, user, password, Optional.of(newSchema), keyPrefix, hashSecret, cacheSize,
                unknownCacheSize, unknownTtl, missLookupsPerSecond, poolSize, lookupTimeout,
                unavailableRetryAfter, onUnavailableAtStart);
    }

    /** This configuration with the Redis keys and channel under {@code prefix} (Redis). */
    public KeyStoreConfig withKeyPrefix(String prefix) {
        return new KeyStoreConfig(url, user, password, schema, Optional.of(prefix), hashSecret, cacheSize,
                unknownCacheSize, unknownTtl, missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter,
                onUnavailableAtStart);
    }

    /** This configuration with keys hashed under HMAC-SHA-256 with {@code secret}, or SHA-256 when empty. */
    public KeyStoreConfig withHashSecret(Optional<String> secret) {
        return new KeyStoreConfig(url, user, password, schema, keyPrefix, secret, cacheSize, unknownCacheSize, unknownTtl,
                missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter, onUnavailableAtStart);
    }

    /** This configuration with another budget of lookups of tokens not in memory, per second. */
    public KeyStoreConfig withMissLookupsPerSecond(int perSecond) {
        return new KeyStoreConfig(url, user, password, schema, keyPrefix, hashSecret, cacheSize, unknownCacheSize, unknownTtl,
                perSecond, poolSize, lookupTimeout, unavailableRetryAfter, onUnavailableAtStart);
    }

    /** This configuration holding at most {@code size} keys in memory. */
    public KeyStoreConfig withCacheSize(int size) {
        return new KeyStoreConfig(url, user, password, schema, keyPrefix, hashSecret, size, unknownCacheSize, unknownTtl,
                missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter, onUnavailableAtStart);
    }

    /** This configuration doing {@code atStart} when the store does not answer at start. */
    public KeyStoreConfig withOnUnavailableAtStart(AtStart atStart) {
        return new KeyStoreConfig(url, user, password, schema, keyPrefix, hashSecret, cacheSize, unknownCacheSize, unknownTtl,
                missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter, atStart);
    }

    /**
     * Reads a {@code key-store} section: a URL alone, or the mapping above. Adds each problem to
     * {@code problems} (file:line: path: message) and returns empty when there was one.
     */
    public static Optional<KeyStoreConfig> read(ConfigNode node, ConfigProblems problems) {
        int before = problems.list().size();
        if (node.kind() == ConfigNode.Kind.SCALAR) {
            String url = node.text().strip();
            Optional<String> wrong = urlProblem(url);
            if (wrong.isPresent()) {
                problems.add(node, wrong.get());
                return Optional.empty();
            }
            return Optional.of(of(url));
        }
        if (!node.expectMapping(problems, "url and the key store's settings")) {
            return Optional.empty();
        }
        node.rejectUnknownFields(problems, FIELDS);
        KeyStoreConfig d = of("jdbc:postgresql://localhost/");
        Optional<String> url = node.get("url").flatMap(n -> n.asText(problems));
        if (url.isEmpty()) {
            if (node.get("url").isEmpty()) {
                problems.add(node, "url: required (jdbc:postgresql://host:5432/database or redis://host:6379)");
            }
            return Optional.empty();
        }
        urlProblem(url.get()).ifPresent(p -> problems.add(node.get("url").get(), p));
        boolean redis = isRedis(url.get());
        for (String pgOnly : List.of("user", "password", "schema")) {
            if (redis) {
                node.get(pgOnly).ifPresent(n -> problems.add(n, "a PostgreSQL setting; a Redis key store takes "
                        + (pgOnly.equals("schema") ? "key-prefix" : "its user and password in the URL "
                                + "(redis://user:password@host:6379)")));
            }
        }
        if (!redis) {
            node.get("key-prefix").ifPresent(n -> problems.add(n, "a Redis setting; a PostgreSQL key store takes "
                    + "schema"));
        }
        Optional<String> user = node.get("user").flatMap(n -> n.asText(problems));
        Optional<String> password = node.get("password").flatMap(n -> n.asText(problems));
        Optional<String> schema = node.get("schema").flatMap(n -> n.asText(problems));
        schema.filter(s -> !s.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")).ifPresent(s -> problems.add(
                node.get("schema").get(), "a schema name of letters, digits and _, was \"" + s + "\""));
        Optional<String> prefix = node.get("key-prefix").flatMap(n -> n.asText(problems));
        prefix.filter(p -> !p.matches(KEY_PREFIX_SYNTAX)).ifPresent(p -> problems.add(node.get("key-prefix").get(),
                "a key prefix of letters, digits and : _ . -, at most 64 (no braces: it is the hash tag), was \""
                        + p + "\""));
        Optional<String> secret = node.get("hash-secret").flatMap(n -> n.asText(problems));
        int cacheSize = (int) node.get("cache-size").map(n -> n.asLong(problems, 1, 100_000_000))
                .orElse(java.util.OptionalLong.of(d.cacheSize())).orElse(d.cacheSize());
        int unknownSize = (int) node.get("unknown-cache-size").map(n -> n.asLong(problems, 0, 100_000_000))
                .orElse(java.util.OptionalLong.of(d.unknownCacheSize())).orElse(d.unknownCacheSize());
        Duration unknownTtl = node.get("unknown-ttl").flatMap(n -> n.asDuration(problems)).orElse(d.unknownTtl());
        int misses = (int) node.get("miss-lookups-per-second").map(n -> n.asLong(problems, 1, 1_000_000))
                .orElse(java.util.OptionalLong.of(d.missLookupsPerSecond())).orElse(d.missLookupsPerSecond());
        int pool = (int) node.get("pool-size").map(n -> n.asLong(problems, 1, 256))
                .orElse(java.util.OptionalLong.of(d.poolSize())).orElse(d.poolSize());
        Duration timeout = node.get("lookup-timeout")
                .flatMap(n -> n.asDuration(problems, Duration.ofMillis(250), Duration.ofMinutes(1)))
                .orElse(d.lookupTimeout());
        Duration retryAfter = node.get("unavailable-retry-after")
                .flatMap(n -> n.asDuration(problems, Duration.ofSeconds(1), Duration.ofHours(1)))
                .orElse(d.unavailableRetryAfter());
        AtStart atStart = node.get("on-unavailable-at-start").flatMap(n -> n.asEnum(problems, AtStart.class))
                .orElse(d.onUnavailableAtStart());
        if (problems.list().size() != before) {
            return Optional.empty();
        }
        return Optional.of(new KeyStoreConfig(url.get(), user, password, schema, prefix, secret, cacheSize, unknownSize,
                unknownTtl, misses, pool, timeout, retryAfter, atStart));
    }
}
