package dev.sluice.keys;

import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The edge file's {@code key-store} section: API keys and their plan bindings in PostgreSQL rather than in
 * the file (plans stay in the file; a key names one).
 *
 * <pre>{@code
 * key-store:
 *   url: jdbc:postgresql://127.0.0.1:5432/sluice?user=sluice   # JDBC URL (user/password in it or below)
 *   user: sluice                     # optional
 *   password: secret                 # optional
 *   schema: public                   # the tables' schema, created if missing
 *   hash-secret: "..."               # HMAC-SHA-256 of keys under this secret; absent: SHA-256
 *   cache-size: 100000               # keys kept in memory (a hit does no I/O)
 *   unknown-cache-size: 100000       # unknown tokens remembered as unknown ...
 *   unknown-ttl: 30s                 # ... this long (a key created meanwhile is seen at once: NOTIFY)
 *   miss-lookups-per-second: 200     # most database lookups of tokens not in memory; past it: 503
 *   pool-size: 4                     # database connections for lookups
 *   lookup-timeout: 1s               # longest wait for a connection / the query
 *   unavailable-retry-after: 1s      # Retry-After of a 503 key_store_unavailable
 *   on-unavailable-at-start: refuse  # or degraded: start, answer 503 to keys not in memory until it is up
 * }</pre>
 *
 * @param url the JDBC URL ({@code jdbc:postgresql://…})
 * @param user the database user, if not in the URL
 * @param password the database password, if not in the URL
 * @param schema the tables' schema, or empty for the connection's default
 * @param hashSecret the HMAC secret keys are hashed under, or empty for SHA-256
 * @param cacheSize the most keys held in memory, ≥ 1
 * @param unknownCacheSize the most unknown tokens remembered, ≥ 0
 * @param unknownTtl how long an unknown token is remembered
 * @param missLookupsPerSecond the budget of lookups of tokens not in memory, per second, ≥ 1
 * @param poolSize lookup connections, ≥ 1
 * @param lookupTimeout the longest wait for a connection and for one lookup
 * @param unavailableRetryAfter the {@code Retry-After} of a 503 {@code key_store_unavailable}
 * @param onUnavailableAtStart what the edge does when the store does not answer at start
 */
public record KeyStoreConfig(String url, Optional<String> user, Optional<String> password, Optional<String> schema,
        Optional<String> hashSecret, int cacheSize, int unknownCacheSize, Duration unknownTtl,
        int missLookupsPerSecond, int poolSize, Duration lookupTimeout, Duration unavailableRetryAfter,
        AtStart onUnavailableAtStart) {

    /** What to do when the key store does not answer at start. */
    public enum AtStart {
        /** Do not start (one line naming the store). */
        REFUSE,
        /** Start; keys not in memory get 503 {@code key_store_unavailable} until the store answers. */
        DEGRADED
    }

    private static final Set<String> FIELDS = new LinkedHashSet<>(List.of("url", "user", "password", "schema",
            "hash-secret", "cache-size", "unknown-cache-size", "unknown-ttl", "miss-lookups-per-second",
            "pool-size", "lookup-timeout", "unavailable-retry-after", "on-unavailable-at-start"));

    public KeyStoreConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(password, "password");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(hashSecret, "hashSecret");
        Objects.requireNonNull(unknownTtl, "unknownTtl");
        Objects.requireNonNull(lookupTimeout, "lookupTimeout");
        Objects.requireNonNull(unavailableRetryAfter, "unavailableRetryAfter");
        Objects.requireNonNull(onUnavailableAtStart, "onUnavailableAtStart");
        if (!url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("url: a jdbc:postgresql:// URL, was " + url);
        }
        if (cacheSize < 1 || unknownCacheSize < 0 || missLookupsPerSecond < 1 || poolSize < 1) {
            throw new IllegalArgumentException("cache-size, miss-lookups-per-second and pool-size must be ≥ 1");
        }
    }

    /** Defaults for everything but the URL. */
    public static KeyStoreConfig of(String url) {
        return new KeyStoreConfig(url, Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                100_000, 100_000, Duration.ofSeconds(30), 200, 4, Duration.ofSeconds(1),
                Duration.ofSeconds(1), AtStart.REFUSE);
    }

    public KeyStoreConfig withSchema(String newSchema) {
        return new KeyStoreConfig(url, user, password, Optional.of(newSchema), hashSecret, cacheSize,
                unknownCacheSize, unknownTtl, missLookupsPerSecond, poolSize, lookupTimeout,
                unavailableRetryAfter, onUnavailableAtStart);
    }

    public KeyStoreConfig withHashSecret(Optional<String> secret) {
        return new KeyStoreConfig(url, user, password, schema, secret, cacheSize, unknownCacheSize, unknownTtl,
                missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter, onUnavailableAtStart);
    }

    public KeyStoreConfig withMissLookupsPerSecond(int perSecond) {
        return new KeyStoreConfig(url, user, password, schema, hashSecret, cacheSize, unknownCacheSize, unknownTtl,
                perSecond, poolSize, lookupTimeout, unavailableRetryAfter, onUnavailableAtStart);
    }

    public KeyStoreConfig withCacheSize(int size) {
        return new KeyStoreConfig(url, user, password, schema, hashSecret, size, unknownCacheSize, unknownTtl,
                missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter, onUnavailableAtStart);
    }

    public KeyStoreConfig withOnUnavailableAtStart(AtStart atStart) {
        return new KeyStoreConfig(url, user, password, schema, hashSecret, cacheSize, unknownCacheSize, unknownTtl,
                missLookupsPerSecond, poolSize, lookupTimeout, unavailableRetryAfter, atStart);
    }

    /**
     * Reads a {@code key-store} section: a JDBC URL alone, or the mapping above. Adds each problem to
     * {@code problems} (file:line: path: message) and returns empty when there was one.
     */
    public static Optional<KeyStoreConfig> read(ConfigNode node, ConfigProblems problems) {
        int before = problems.list().size();
        if (node.kind() == ConfigNode.Kind.SCALAR) {
            String url = node.text().strip();
            if (!url.startsWith("jdbc:postgresql:")) {
                problems.add(node, "a jdbc:postgresql://host:5432/database URL, was \"" + url + "\"");
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
                problems.add(node, "url: required (jdbc:postgresql://host:5432/database)");
            }
            return Optional.empty();
        }
        if (!url.get().startsWith("jdbc:postgresql:")) {
            problems.add(node.get("url").get(), "a jdbc:postgresql://host:5432/database URL, was \"" + url.get()
                    + "\"");
        }
        Optional<String> user = node.get("user").flatMap(n -> n.asText(problems));
        Optional<String> password = node.get("password").flatMap(n -> n.asText(problems));
        Optional<String> schema = node.get("schema").flatMap(n -> n.asText(problems));
        schema.filter(s -> !s.matches("[A-Za-z_][A-Za-z0-9_]{0,62}")).ifPresent(s -> problems.add(
                node.get("schema").get(), "a schema name of letters, digits and _, was \"" + s + "\""));
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
        return Optional.of(new KeyStoreConfig(url.get(), user, password, schema, secret, cacheSize, unknownSize,
                unknownTtl, misses, pool, timeout, retryAfter, atStart));
    }
}
