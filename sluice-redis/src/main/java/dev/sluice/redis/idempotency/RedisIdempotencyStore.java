package dev.sluice.redis.idempotency;

import dev.sluice.limiter.idempotency.Claim;
import dev.sluice.limiter.idempotency.IdempotencyKey;
import dev.sluice.limiter.idempotency.IdempotencyRecord;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.RecordedResponse;
import dev.sluice.limiter.idempotency.RequestFingerprint;
import dev.sluice.limiter.idempotency.RequestTarget;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.RedisUnavailableException;
import dev.sluice.redis.internal.BoundedScriptCall;
import dev.sluice.redis.internal.HashTags;
import dev.sluice.redis.internal.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * An {@link IdempotencyStore} in Redis (SPEC §3.11), so a retry that lands on another edge replica
 * finds the record its first attempt left.
 *
 * <p><b>One script call per operation</b> ({@code idempotency.lua}), so each is atomic on the server:
 * {@code begin} reads the record and, when there is none, writes the in-flight marker in the same step
 * (exactly one of many concurrent {@code begin}s acquires); {@code complete} and {@code abandon} act
 * only while the record is the claim named by the token. Sent by {@code EVALSHA}, reloaded on
 * {@code NOSCRIPT}.
 *
 * <p><b>Keys and time.</b> One hash per record, {@code <prefix>{<API key hash>}:<Idempotency-Key>}: the
 * hash tag keeps an API key's records in one Redis Cluster slot, and is the SHA-256 of the API key
 * ({@link HashTags#credential}), so no key name shows a credential. The script's clock is the server's
 * {@code TIME}, shared by every replica ({@link RedisIdempotencyConfig#scriptTime()} substitutes a test
 * clock). Each record carries its logical expiry (lease, then retention), checked by every operation;
 * its key also has a TTL (R16): a marker's is {@code markerTtlFactor} leases (a holder past its lease
 * can still complete while nobody took the key), a completed record's is its retention. Response bodies
 * are stored base64-encoded (the connection speaks UTF-8 strings).
 *
 * <p><b>When Redis does not answer</b> within {@code operationTimeout} (default 50 ms), or is marked
 * down by the shared {@link RedisEndpoint}: the {@code ...Async} operations complete exceptionally with
 * {@link RedisUnavailableException} (a {@link dev.sluice.limiter.spi.StoreUnavailableException}), the
 * blocking ones throw it. The edge then forwards the request without a record, as the SPI says. A
 * {@code begin} that timed out but that Redis ran later would leave a marker nobody completes, blocking
 * retries until its lease ends: its late reply abandons that marker.
 *
 * <p>Thread-safe. The async operations never block; the blocking ones wait at most about the timeout.
 */
public final class RedisIdempotencyStore implements IdempotencyStore {

    private final RedisEndpoint endpoint;
    private final boolean ownsEndpoint;
    private final RedisIdempotencyConfig config;
    private final BoundedScriptCall calls;
    private final LongAdder failures = new LongAdder();
    private final LongAdder lateAbandons = new LongAdder();

    /**
     * A store over {@code endpoint}, which the caller shares (e.g. with the limiter store) and closes.
     *
     * @throws NullPointerException if an argument is {@code null}
     * @throws dev.sluice.redis.RedisTopologyException if the endpoint is a cluster and the key prefix has a
     *     brace
     */
    public RedisIdempotencyStore(RedisEndpoint endpoint, RedisIdempotencyConfig config) {
        this(endpoint, false, config, idempotencyScript());
    }

    RedisIdempotencyStore(RedisEndpoint endpoint, boolean ownsEndpoint, RedisIdempotencyConfig config,
            LuaScript script) {
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
        this.ownsEndpoint = ownsEndpoint;
        this.config = Objects.requireNonNull(config, "config");
        HashTags.requireUsablePrefix("keyPrefix", config.keyPrefix(), endpoint);
        this.calls = new BoundedScriptCall(endpoint, script, config.operationTimeout(), "redis idempotency");
        calls.preloadWhenUp();
    }

    /**
     * A store with its own {@link RedisEndpoint} at {@code uri} ({@link dev.sluice.redis.RedisUrl}: one
     * server, a cluster or a sentinel's primary), closed with the store. Waits for the first connection
     * attempt at most ten connect timeouts (10 s), then returns either way; until Redis answers,
     * operations fail with {@link RedisUnavailableException}.
     *
     * @throws IllegalArgumentException if the URI cannot be parsed
     * @throws dev.sluice.redis.RedisTopologyException if Redis answered and is deployed otherwise than the
     *     URL says, or the key prefix has a brace on a cluster
     */
    public static RedisIdempotencyStore open(String uri, RedisIdempotencyConfig config) {
        RedisEndpointConfig endpointConfig = RedisEndpointConfig.of(uri);
        RedisEndpoint endpoint = RedisEndpoint.connect(endpointConfig);
        try {
            endpoint.awaitFirstAttempt(endpointConfig.connectTimeout().multipliedBy(10));
            return new RedisIdempotencyStore(endpoint, true, config, idempotencyScript());
        } catch (RuntimeException e) {
            endpoint.close();
            throw e;
        }
    }

    /** A fresh instance of {@code idempotency.lua} (each store counts its own loads). */
    static LuaScript idempotencyScript() {
        return LuaScript.resource(RedisIdempotencyStore.class, "idempotency.lua");
    }

    /** The endpoint this store talks through. */
    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /**
     * Counters since the store was made.
     *
     * @param calls script calls sent to Redis
     * @param timeouts calls not answered within the operation timeout
     * @param failures operations that failed without a reply (Redis down, refused, timed out, an error)
     * @param lateAbandons markers acquired by a {@code begin} that had already failed, abandoned again
     * @param scriptLoads {@code SCRIPT LOAD}s this store made
     */
    public record Stats(long calls, long timeouts, long failures, long lateAbandons, long scriptLoads) {}

    public Stats stats() {
        return new Stats(calls.sent(), calls.timeouts(), failures.sum(), lateAbandons.sum(), calls.script().loads());
    }

    // ------------------------------------------------------------------------------------- operations

    @Override
    public Claim begin(IdempotencyKey key, RequestTarget target, Duration lease) {
        return join(beginAsync(key, target, lease));
    }

    @Override
    public CompletionStage<Claim> beginAsync(IdempotencyKey key, RequestTarget target, Duration lease) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(target, "target");
        long leaseMillis;
        try {
            leaseMillis = positiveMillis("lease", lease);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String token = UUID.randomUUID().toString();
        long ttlMillis = Math.multiplyExact(leaseMillis, (long) config.markerTtlFactor());
        String[] keys = {recordKey(key)};
        String[] args = {"B", nowArg(), target.method(), target.path(), token, Long.toString(leaseMillis),
                Long.toString(ttlMillis)};
        return call(keys, args, reply -> claimOf(reply, target, token), late -> {
            if ("A".equals(late.get(0))) {
                lateAbandons.increment(); // nobody holds this marker: free the key for the retry
                call(keys, new String[] {"A", nowArg(), token}, reply -> null, l -> {}, true);
            }
        }, false);
    }

    @Override
    public boolean complete(IdempotencyKey key, String token, RequestFingerprint fingerprint,
            RecordedResponse response, Duration retention) {
        return join(completeAsync(key, token, fingerprint, response, retention));
    }

    /**
     * Completes exceptionally with {@link IllegalArgumentException} (the caller's bug) when the
     * fingerprint's target is not the claimed one; nothing changes then.
     */
    @Override
    public CompletionStage<Boolean> completeAsync(IdempotencyKey key, String token, RequestFingerprint fingerprint,
            RecordedResponse response, Duration retention) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(response, "response");
        long retentionMillis;
        try {
            retentionMillis = positiveMillis("retention", retention);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        String[] args = switch (response) {
            case RecordedResponse.Replayable r -> completeArgs(token, fingerprint, r.status(), "R",
                    encodeFields(r.fields()), Base64.getEncoder().encodeToString(r.body()), "", retentionMillis);
            case RecordedResponse.NotReplayable n -> completeArgs(token, fingerprint, n.status(), "N", "", "",
                    n.reason(), retentionMillis);
        };
        return call(new String[] {recordKey(key)}, args, reply -> {
            if ("T".equals(reply.get(0))) {
                throw new IllegalArgumentException("fingerprint: target " + fingerprint.target()
                        + " is not the claimed " + new RequestTarget((String) reply.get(1), (String) reply.get(2)));
            }
            return ((Long) reply.get(0)) == 1L;
        }, late -> {}, false);
    }

    private String[] completeArgs(String token, RequestFingerprint fingerprint, int status, String kind,
            String fields, String body, String reason, long retentionMillis) {
        return new String[] {"C", nowArg(), token, fingerprint.target().method(), fingerprint.target().path(),
                fingerprint.bodySha256(), Integer.toString(status), kind, fields, body, reason,
                Long.toString(retentionMillis)};
    }

    @Override
    public boolean abandon(IdempotencyKey key, String token) {
        return join(abandonAsync(key, token));
    }

    @Override
    public CompletionStage<Boolean> abandonAsync(IdempotencyKey key, String token) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(token, "token");
        return call(new String[] {recordKey(key)}, new String[] {"A", nowArg(), token},
                reply -> ((Long) reply.get(0)) == 1L, late -> {}, false);
    }

    @Override
    public Optional<IdempotencyRecord> lookup(IdempotencyKey key) {
        return join(lookupAsync(key));
    }

    @Override
    public CompletionStage<Optional<IdempotencyRecord>> lookupAsync(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        return call(new String[] {recordKey(key)}, new String[] {"L", nowArg()}, reply -> {
            if (reply.isEmpty()) {
                return Optional.<IdempotencyRecord>empty();
            }
            RequestTarget target = new RequestTarget((String) reply.get(1), (String) reply.get(2));
            if ("F".equals(reply.get(0))) {
                return Optional.of(new IdempotencyRecord(target, Optional.empty(), Optional.empty()));
            }
            return Optional.of(new IdempotencyRecord(target,
                    Optional.of(new RequestFingerprint(target, (String) reply.get(3))),
                    Optional.of(responseOf(reply, 4))));
        }, late -> {}, false);
    }

    /** Closes the endpoint if the store opened it ({@link #open}); a shared endpoint stays open. */
    @Override
    public void close() {
        if (ownsEndpoint) {
            endpoint.close();
        }
    }

    // ---------------------------------------------------------------------------------- replies

    private static Claim claimOf(List<Object> reply, RequestTarget target, String token) {
        return switch ((String) reply.get(0)) {
            case "A" -> new Claim.Acquired(token);
            case "F" -> new Claim.InFlight(target);
            case "X" -> new Claim.Conflict(new RequestTarget((String) reply.get(1), (String) reply.get(2)));
            case "C" -> new Claim.Completed(new RequestFingerprint(target, (String) reply.get(1)), responseOf(reply, 2));
            default -> throw new IllegalStateException("idempotency.lua: unexpected reply " + reply);
        };
    }

    /** The recorded response from the five values at {@code from}: status, kind, fields, body, reason. */
    private static RecordedResponse responseOf(List<Object> reply, int from) {
        int status = Integer.parseInt((String) reply.get(from));
        if ("N".equals(reply.get(from + 1))) {
            return new RecordedResponse.NotReplayable(status, (String) reply.get(from + 4));
        }
        return new RecordedResponse.Replayable(status, decodeFields((String) reply.get(from + 2)),
                Base64.getDecoder().decode((String) reply.get(from + 3)));
    }

    /** {@code <length>:<name><length>:<value>} per field: any characters survive, nothing to escape. */
    static String encodeFields(List<RecordedResponse.Field> fields) {
        StringBuilder sb = new StringBuilder();
        for (RecordedResponse.Field f : fields) {
            sb.append(f.name().length()).append(':').append(f.name());
            sb.append(f.value().length()).append(':').append(f.value());
        }
        return sb.toString();
    }

    /** @throws IllegalStateException when {@code encoded} is not what {@link #encodeFields} writes */
    static List<RecordedResponse.Field> decodeFields(String encoded) {
        List<RecordedResponse.Field> fields = new ArrayList<>();
        int[] at = {0};
        while (at[0] < encoded.length()) {
            String name = next(encoded, at);
            String value = next(encoded, at);
            fields.add(new RecordedResponse.Field(name, value));
        }
        return fields;
    }

    private static String next(String encoded, int[] at) {
        int colon = encoded.indexOf(':', at[0]);
        if (colon < 0) {
            throw new IllegalStateException("a damaged recorded field list at " + at[0]);
        }
        int length;
        try {
            length = Integer.parseInt(encoded, at[0], colon, 10);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("a damaged recorded field list at " + at[0], e);
        }
        int end = colon + 1 + length;
        if (length < 0 || end > encoded.length()) {
            throw new IllegalStateException("a damaged recorded field list at " + at[0]);
        }
        at[0] = end;
        return encoded.substring(colon + 1, end);
    }

    // -------------------------------------------------------------------------------------- calls

    /**
     * Runs the script with a bounded wait ({@link BoundedScriptCall}): {@code onReply} answers, or the
     * stage fails with {@link RedisUnavailableException} (Redis cannot serve, or answered an error, logged
     * by {@link BoundedScriptCall}), or with what {@code onReply} threw; a reply after a timeout goes to {@code onLateReply}.
     *
     * @param evenIfDown send even while the endpoint is marked down (a late reply just proved it answers)
     */
    private <T> CompletableFuture<T> call(String[] keys, String[] args, Function<List<Object>, T> onReply,
            Consumer<List<Object>> onLateReply, boolean evenIfDown) {
        return calls.call(keys, args, evenIfDown, onReply, onLateReply, failure -> {
            if (failure.kind() == BoundedScriptCall.Kind.UNREADABLE) {
                throw (RuntimeException) failure.cause(); // onReply's own exception, e.g. the caller's bug
            }
            failures.increment(); // an error reply (MOVED, CROSSSLOT, a script error) is no usable Redis either
            throw new RedisUnavailableException("idempotency: " + failure.reason(), failure.cause());
        });
    }

    private <T> T join(CompletionStage<T> stage) {
        endpoint.flushScriptsNow(); // a blocked event loop would never flush it
        try {
            return stage.toCompletableFuture().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    private String recordKey(IdempotencyKey key) {
        return HashTags.taggedCredential(config.keyPrefix(), key.apiKey()) + key.value();
    }

    private String nowArg() {
        return config.scriptTime() == null ? "" : Long.toString(config.scriptTime().now().toEpochMilli());
    }

    /** {@code d} in whole milliseconds, rounded up. */
    private static long positiveMillis(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": must be > 0, was " + d);
        }
        long ms = d.toMillis();
        return d.minusMillis(ms).isZero() ? ms : ms + 1;
    }

}
