package dev.sluice.keys.redis;

import dev.sluice.keys.internal.ChangeFeed;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.edge.keys.StoredKey;
import dev.sluice.keys.ApiKeyStore;
import dev.sluice.keys.KeyChanges;
import dev.sluice.keys.KeyStoreConfig;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.RedisTopologyException;
import dev.sluice.redis.RedisUrl;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * API keys in Redis, one hash per key, stored hashed ({@link KeyHashing}: the same digest the PostgreSQL store
 * keeps), never in clear. Reads for the edge's cache ({@link dev.sluice.keys.KeyBackend}) and writes for the
 * admin API ({@link dev.sluice.edge.keys.KeyAdministration}); every write is one Lua script that also
 * {@code PUBLISH}es the key's hash on the store's channel, which the subscriber that {@link #watch} starts turns
 * into a cache refresh on every edge.
 *
 * <p><b>Layout</b> (prefix {@code p}, {@code key-prefix}, default {@code sluice:keys}):
 * <table>
 *   <caption>Redis keys and channel</caption>
 *   <tr><th>name</th><th>type</th><th>holds</th></tr>
 *   <tr><td>{@code {p}:key:<hash>}</td><td>hash</td><td>one key: {@code key_id}, {@code plan},
 *       {@code renewal_day} (0..31), {@code created_at} and {@code revoked_at} (Unix milliseconds, Redis's
 *       {@code TIME}), {@code label} and {@code warning_destination} when set, and {@code q:<policy>} per
 *       override; {@code <hash>} is 64 hex digits</td></tr>
 *   <tr><td>{@code {p}:ids}</td><td>hash</td><td>key id → key hash (the admin API addresses keys by id)</td></tr>
 *   <tr><td>{@code p:changes}</td><td>channel</td><td>the hash of each key a write changed</td></tr>
 * </table>
 * Every key carries the hash tag {@code {p}}, so on a Redis Cluster all of a store's keys live in one slot:
 * a write changes a key and the id index in one atomic script, which Redis Cluster allows only within one
 * slot. The cost, one node holding the whole key set (about 300 bytes a key), is small beside what the tag
 * buys; reads are few by design (each edge's cache answers hits, and misses are bounded by
 * {@code miss-lookups-per-second}). A revoked key keeps its hash with {@code revoked_at} set, as the table row
 * of the PostgreSQL store does.
 *
 * <p><b>By hand.</b> A change made with {@code redis-cli} reaches the edges only with a
 * {@code PUBLISH p:changes <hash>} after it (Redis has no trigger); edges read their cached keys again after
 * their subscription was down, not otherwise.
 *
 * <p><b>Connections.</b> One {@link RedisEndpoint} (so {@code redis://}, {@code rediss://},
 * {@code redis-cluster://} and {@code redis-sentinel://} URLs all work): its shared connection for reads and
 * writes, each bounded by {@code lookup-timeout}, and a publish/subscribe connection for the change feed. The
 * endpoint marks Redis down after 3 consecutive failures; until its probe finds it again, reads fail at once
 * ({@link KeyStoreException}), so misses get 503 {@code key_store_unavailable} without waiting. Thread-safe.
 */
public final class RedisKeyStore implements ApiKeyStore {

    private static final Logger LOG = LoggerFactory.getLogger(RedisKeyStore.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int KEY_BYTES = 24;
    /** How long {@link #open} waits for the first connection (a cold JVM loads Lettuce first). */
    private static final Duration FIRST_CONNECT_BOUND = Duration.ofSeconds(5);
    private static final int BATCH = 500;

    static final String KEY_ID = "key_id";
    static final String PLAN = "plan";
    static final String RENEWAL_DAY = "renewal_day";
    static final String LABEL = "label";
    static final String WARNING_DESTINATION = "warning_destination";
    static final String CREATED_AT = "created_at";
    static final String REVOKED_AT = "revoked_at";
    static final String OVERRIDE = "q:";

    /** Unix milliseconds from Redis's clock, as a decimal string (exact: no Lua number formatting). */
    private static final String NOW = """
            local t = redis.call('TIME')
            local now = t[1] .. string.format('%03d', math.floor(tonumber(t[2]) / 1000))
            """;

    /**
     * KEYS: the key's hash, the id index. ARGV: key hash, key id, plan, renewal day, label ({@code +text} or
     * {@code -}), warning destination (same), channel, then policy, q pairs. An empty reply: the hash or the id
     * exists already.
     */
    private static final String CREATE = """
            if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then
              return {}
            end
            """ + NOW + """
            redis.call('HSET', KEYS[1], 'key_id', ARGV[2], 'plan', ARGV[3], 'renewal_day', ARGV[4], 'created_at', now)
            if string.sub(ARGV[5], 1, 1) == '+' then
              redis.call('HSET', KEYS[1], 'label', string.sub(ARGV[5], 2))
            end
            if string.sub(ARGV[6], 1, 1) == '+' then
              redis.call('HSET', KEYS[1], 'warning_destination', string.sub(ARGV[6], 2))
            end
            for i = 8, #ARGV, 2 do
              redis.call('HSET', KEYS[1], 'q:' .. ARGV[i], ARGV[i + 1])
            end
            redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
            redis.call('PUBLISH', ARGV[7], ARGV[1])
            return redis.call('HGETALL', KEYS[1])
            """;

    /**
     * KEYS: the key's hash, the id index. ARGV: key id, key hash, channel, live only ({@code 1}: not on a
     * revoked key), operation ({@code set}, {@code del}, {@code revoke}: the first revocation time kept), field,
     * value. An empty reply: no such key (or revoked, when live only).
     */
    private static final String UPDATE = """
            if redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] or redis.call('EXISTS', KEYS[1]) == 0 then
              return {}
            end
            if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[1], 'revoked_at') == 1 then
              return {}
            end
            if ARGV[5] == 'set' then
              redis.call('HSET', KEYS[1], ARGV[6], ARGV[7])
            elseif ARGV[5] == 'del' then
              redis.call('HDEL', KEYS[1], ARGV[6])
            else
            """ + NOW + """
              redis.call('HSETNX', KEYS[1], 'revoked_at', now)
            end
            redis.call('PUBLISH', ARGV[3], ARGV[2])
            return redis.call('HGETALL', KEYS[1])
            """;

    private final KeyStoreConfig config;
    private final KeyHashing hashing;
    private final KeyIds ids;
    private final RedisEndpoint endpoint;
    private final String redacted;
    private final String tag;
    private final String idsKey;
    private final String channel;
    private final long timeoutNanos;
    private final AtomicBoolean closed = new AtomicBoolean();
    private ChangeFeed feed;

    private RedisKeyStore(KeyStoreConfig config, KeyIds ids, RedisEndpoint endpoint, RedisUrl url) {
        this.config = config;
        this.hashing = new KeyHashing(config.hashSecret());
        this.ids = ids;
        this.endpoint = endpoint;
        String masked = url.masked();
        int q = masked.indexOf('?');
        this.redacted = q < 0 ? masked : masked.substring(0, q);
        String prefix = config.effectiveKeyPrefix();
        this.tag = "{" + prefix + "}";
        this.idsKey = tag + ":ids";
        this.channel = prefix + ":changes";
        this.timeoutNanos = config.lookupTimeout().toNanos();
    }

    /**
     * Connects to the Redis of {@code config.url()} and waits (at most 5 s) for the first connection. A Redis
     * that does not answer is not an error here ({@link #ping()} says so; the endpoint connects when it can).
     *
     * @param config a Redis key store's settings ({@link KeyStoreConfig#redis()})
     * @param ids the edge's key ids ({@code key-id-secret}), used for new keys
     * @throws IllegalArgumentException when {@code config} is not a Redis store's
     * @throws KeyStoreException when Redis is deployed otherwise than the URL says (a {@code redis://} URL at a
     *     cluster node, a Sentinel that knows no such master): one line, the store not opened
     */
    public static RedisKeyStore open(KeyStoreConfig config, KeyIds ids) {
        if (!config.redis()) {
            throw new IllegalArgumentException("not a Redis key store: " + RedisUrl.masked(config.url()));
        }
        RedisUrl url = RedisUrl.parse(config.url());
        RedisEndpoint endpoint = RedisEndpoint.connect(RedisEndpointConfig.of(config.url()));
        try {
            endpoint.awaitFirstAttempt(FIRST_CONNECT_BOUND);
        } catch (RedisTopologyException e) {
            endpoint.close();
            throw new KeyStoreException("key store " + url.masked() + ": " + e.getMessage()
                    + "; not starting", e);
        }
        return new RedisKeyStore(config, ids, endpoint, url);
    }

    @Override
    public KeyHashing hashing() {
        return hashing;
    }

    @Override
    public String redacted() {
        return redacted;
    }

    /** The Redis key of the hash of the key whose digest is {@code keyHash}. */
    public String redisKey(String keyHash) {
        return tag + ":key:" + keyHash;
    }

    /** The channel every write publishes the changed key's hash on. */
    public String channel() {
        return channel;
    }

    RedisEndpoint endpoint() {
        return endpoint;
    }

    KeyStoreConfig config() {
        return config;
    }

    @Override
    public boolean ping() {
        RedisClusterAsyncCommands<String, String> c = endpoint.commandsAnyway();
        if (c == null) {
            return false;
        }
        try {
            return "PONG".equalsIgnoreCase(c.ping().get(timeoutNanos, TimeUnit.NANOSECONDS));
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    // ---- reads ----------------------------------------------------------------------------------------

    @Override
    public Optional<StoredKey> lookup(String keyHash) {
        Map<String, String> h = await(commands().hgetall(redisKey(keyHash)));
        return h.isEmpty() || h.containsKey(REVOKED_AT) ? Optional.empty() : Optional.of(record(keyHash, h).key());
    }

    @Override
    public Map<String, StoredKey> lookupAll(Collection<String> keyHashes) {
        Map<String, StoredKey> out = new HashMap<>();
        Iterator<String> it = keyHashes.iterator();
        while (it.hasNext()) {
            RedisClusterAsyncCommands<String, String> c = commands();
            Map<String, RedisFuture<Map<String, String>>> batch = new LinkedHashMap<>();
            while (it.hasNext() && batch.size() < BATCH) {
                String h = it.next();
                batch.put(h, c.hgetall(redisKey(h)));
            }
            for (Map.Entry<String, RedisFuture<Map<String, String>>> e : batch.entrySet()) {
                Map<String, String> h = await(e.getValue());
                if (!h.isEmpty() && !h.containsKey(REVOKED_AT)) {
                    out.put(e.getKey(), record(e.getKey(), h).key());
                }
            }
        }
        return out;
    }

    @Override
    public Optional<KeyRecord> find(String keyId) {
        String hash = await(commands().hget(idsKey, keyId));
        if (hash == null) {
            return Optional.empty();
        }
        Map<String, String> h = await(commands().hgetall(redisKey(hash)));
        return h.isEmpty() ? Optional.empty() : Optional.of(record(hash, h));
    }

    // ---- writes ---------------------------------------------------------------------------------------

    @Override
    public CreatedKey create(String plan, int renewalDay, Map<String, Long> overrides, Optional<String> label,
            Optional<String> warningDestination) {
        // checked here as the table's constraints check them there: nothing half-written
        new StoredKey("0".repeat(64), "k", plan, renewalDay, overrides, warningDestination);
        for (int attempt = 0; ; attempt++) {
            byte[] raw = new byte[KEY_BYTES];
            RANDOM.nextBytes(raw);
            String apiKey = "sk_" + Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
            String id = ids.id(apiKey);
            String hash = hashing.hash(apiKey);
            List<String> args = new ArrayList<>(List.of(hash, id, plan, Integer.toString(renewalDay),
                    label.map(l -> "+" + l).orElse("-"), warningDestination.map(d -> "+" + d).orElse("-"), channel));
            new TreeMap<>(overrides).forEach((policy, q) -> {
                args.add(policy);
                args.add(Long.toString(q));
            });
            List<Object> reply = await(commands().eval(CREATE, ScriptOutputType.MULTI,
                    new String[] {redisKey(hash), idsKey}, args.toArray(String[]::new)));
            if (!reply.isEmpty()) {
                return new CreatedKey(apiKey, record(hash, pairs(reply)));
            }
            // a 48-bit id collision is retried with a new key, as the PostgreSQL store does
            if (attempt >= 3) {
                throw new KeyStoreException("key store " + redacted + ": key id " + id + " exists already", null);
            }
        }
    }

    @Override
    public Optional<KeyRecord> revoke(String keyId) {
        return update(keyId, false, "revoke", REVOKED_AT, "");
    }

    @Override
    public Optional<KeyRecord> changePlan(String keyId, String plan) {
        return update(keyId, true, "set", PLAN, plan);
    }

    @Override
    public Optional<KeyRecord> setOverride(String keyId, String policy, OptionalLong q) {
        if (q.isPresent() && q.getAsLong() < 1) {
            throw new IllegalArgumentException("overrides." + policy + ".q: must be ≥ 1, was " + q.getAsLong());
        }
        return q.isPresent()
                ? update(keyId, true, "set", OVERRIDE + policy, Long.toString(q.getAsLong()))
                : update(keyId, true, "del", OVERRIDE + policy, "");
    }

    @Override
    public Optional<KeyRecord> setWarningDestination(String keyId, Optional<String> destination) {
        return destination.isPresent()
                ? update(keyId, false, "set", WARNING_DESTINATION, destination.get())
                : update(keyId, false, "del", WARNING_DESTINATION, "");
    }

    private Optional<KeyRecord> update(String keyId, boolean liveOnly, String op, String field, String value) {
        String hash = await(commands().hget(idsKey, keyId));
        if (hash == null) {
            return Optional.empty();
        }
        List<Object> reply = await(commands().eval(UPDATE, ScriptOutputType.MULTI,
                new String[] {redisKey(hash), idsKey}, keyId, hash, channel, liveOnly ? "1" : "0", op, field, value));
        return reply.isEmpty() ? Optional.empty() : Optional.of(record(hash, pairs(reply)));
    }

    // ---- change feed ----------------------------------------------------------------------------------

    @Override
    public synchronized void watch(KeyChanges changes) {
        if (feed != null) {
            throw new IllegalStateException("already watched");
        }
        if (closed.get()) {
            throw new IllegalStateException("closed");
        }
        feed = new RedisKeyChangeFeed(this, changes);
        feed.start();
    }

    @Override
    public boolean watching() {
        ChangeFeed f;
        synchronized (this) {
            f = feed;
        }
        return f != null && f.listening();
    }

    /** Stops the subscriber (its thread and connection), then closes the endpoint. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        ChangeFeed f;
        synchronized (this) {
            f = feed;
        }
        if (f != null) {
            f.close();
        }
        endpoint.close();
    }

    // ---- plumbing -------------------------------------------------------------------------------------

    private RedisClusterAsyncCommands<String, String> commands() {
        RedisClusterAsyncCommands<String, String> c = endpoint.commandsIfUp();
        if (c == null) {
            throw new KeyStoreException("key store " + redacted + " unavailable: Redis is down", null);
        }
        return c;
    }

    /**
     * The reply within {@code lookup-timeout}. A timeout or a lost connection counts towards the endpoint
     * marking Redis down; an error reply (a hand-made key of the wrong type) does not.
     */
    private <T> T await(RedisFuture<T> reply) {
        try {
            T value = reply.get(timeoutNanos, TimeUnit.NANOSECONDS);
            endpoint.recordSuccess();
            return value;
        } catch (TimeoutException e) {
            reply.cancel(false);
            endpoint.recordFailure(e);
            throw new KeyStoreException("key store " + redacted + ": no answer within "
                    + Duration.ofNanos(timeoutNanos).toMillis() + " ms", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (!(cause instanceof RedisCommandExecutionException)) {
                endpoint.recordFailure(cause);
            }
            throw new KeyStoreException("key store " + redacted + ": " + cause.getMessage(), cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KeyStoreException("key store " + redacted + ": interrupted", e);
        }
    }

    /** A script's {@code HGETALL} reply (field, value, field, value …) as a map. */
    private static Map<String, String> pairs(List<Object> reply) {
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i + 1 < reply.size(); i += 2) {
            out.put(String.valueOf(reply.get(i)), String.valueOf(reply.get(i + 1)));
        }
        return out;
    }

    /**
     * A key's hash read back.
     *
     * @throws KeyStoreException naming the Redis key and field when the hash is not a key's (a hand edit)
     */
    KeyRecord record(String keyHash, Map<String, String> h) {
        String field = KEY_ID;
        try {
            String id = required(h, KEY_ID);
            field = PLAN;
            String plan = required(h, PLAN);
            field = RENEWAL_DAY;
            int renewal = Integer.parseInt(h.getOrDefault(RENEWAL_DAY, "0"));
            field = CREATED_AT;
            Instant created = Instant.ofEpochMilli(Long.parseLong(required(h, CREATED_AT)));
            field = REVOKED_AT;
            Optional<Instant> revoked = Optional.ofNullable(h.get(REVOKED_AT)).map(Long::parseLong)
                    .map(Instant::ofEpochMilli);
            Map<String, Long> overrides = new TreeMap<>();
            for (Map.Entry<String, String> e : h.entrySet()) {
                if (e.getKey().startsWith(OVERRIDE)) {
                    field = e.getKey();
                    overrides.put(e.getKey().substring(OVERRIDE.length()), Long.parseLong(e.getValue()));
                }
            }
            field = "the key";
            StoredKey key = new StoredKey(keyHash, id, plan, renewal, overrides,
                    Optional.ofNullable(h.get(WARNING_DESTINATION)));
            return new KeyRecord(key, Optional.ofNullable(h.get(LABEL)), created, revoked);
        } catch (IllegalArgumentException e) {
            LOG.debug("malformed key hash {}", redisKey(keyHash), e);
            throw new KeyStoreException("key store " + redacted + ": " + redisKey(keyHash) + " " + field + ": "
                    + e.getMessage(), e);
        }
    }

    private static String required(Map<String, String> h, String field) {
        String v = h.get(field);
        if (v == null || v.isEmpty()) {
            throw new IllegalArgumentException("missing");
        }
        return v;
    }
}
