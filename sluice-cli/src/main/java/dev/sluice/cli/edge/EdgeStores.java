package dev.sluice.cli.edge;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.idempotency.IdempotencyConfig;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.idempotency.RedisIdempotencyConfig;
import dev.sluice.redis.idempotency.RedisIdempotencyStore;
import dev.sluice.redis.limiter.LeasingLimiterStore;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.TimeSource;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Builds the limiter store that an edge configuration's {@code store} section names (SPEC §3.14): the
 * in-memory store, or {@link RedisLimiterStore} (wrapped in {@link LeasingLimiterStore} when
 * {@code lease} is on). It lives in the command because the edge module does not depend on Redis; an
 * embedding application does the same and passes the store with {@code EdgeOptions.withStore(...)}.
 *
 * <pre>{@code
 * EdgeConfig config = EdgeConfig.load(file);
 * LimiterStore store = EdgeStores.open(config.store(), TimeSource.system());
 * Optional<IdempotencyStore> records = EdgeStores.idempotency(config, store);
 * EdgeOptions options = EdgeOptions.defaults().withStore(store);
 * EdgeServer edge = EdgeServer.start(config, records.map(options::withIdempotencyStore).orElse(options));
 * // close: edge, records, store
 * }</pre>
 */
public final class EdgeStores {

    private EdgeStores() {
    }

    /**
     * The store of {@code config}. A Redis store waits at most its endpoint's connect timeout (1 s) for
     * the first connection, then returns either way: until Redis answers, the failure mode decides.
     *
     * @param time the clock of the in-memory store, and of the Redis store's local fallback, deny cache
     *     and lease expiry
     * @return a store the caller closes (after the edge)
     * @throws IllegalArgumentException when Lettuce cannot parse the Redis URL
     * @throws dev.sluice.redis.RedisTopologyException (an {@code IllegalArgumentException}) when Redis
     *     answered and is deployed otherwise than the URL says: a {@code redis://} URL at a cluster node, a
     *     {@code redis-cluster://} URL at a server without cluster support, a sentinel without the URL's
     *     master; {@code sluice edge} prints its one-line message and exits with 2
     */
    public static LimiterStore open(StoreConfig config, TimeSource time) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(time, "time");
        return switch (config) {
            case StoreConfig.Memory m -> new InMemoryLimiterStore(time);
            case StoreConfig.Redis r -> {
                RedisLimiterStore redis = RedisLimiterStore.open(RedisEndpointConfig.of(r.url()),
                        limiterConfig(r, time));
                yield r.lease().isEmpty() ? redis
                        : LeasingLimiterStore.owning(redis, r.lease().get().units(), r.lease().get().ttl(), time);
            }
        };
    }

    /**
     * The idempotency store (SPEC §3.11) that goes with {@code limiter}, a store {@link #open} made for
     * {@code config}: when the {@code store} section is Redis and {@code idempotency.store} is not
     * {@code memory}, a {@link RedisIdempotencyStore} on the limiter's connection (records under
     * {@link #idempotencyPrefix}, each operation bounded by the section's {@code decision-timeout}), so a retry
     * that lands on another replica finds its record; otherwise empty (the edge keeps its records in
     * memory).
     *
     * @return a store the caller closes (after the edge, before {@code limiter}: it shares the connection)
     * @throws IllegalArgumentException if {@code limiter} is not a store {@link #open} made for a Redis section
     */
    public static Optional<IdempotencyStore> idempotency(EdgeConfig config, LimiterStore limiter) {
        if (!(config.store() instanceof StoreConfig.Redis r)
                || config.protection().idempotency().store().equals(Optional.of(IdempotencyConfig.Store.MEMORY))) {
            return Optional.empty();
        }
        RedisLimiterStore redis = switch (limiter) {
            case RedisLimiterStore s -> s;
            case LeasingLimiterStore l -> l.redis();
            default -> throw new IllegalArgumentException("not a store EdgeStores.open made for " + r + ": " + limiter);
        };
        return Optional.of(new RedisIdempotencyStore(redis.endpoint(), RedisIdempotencyConfig.builder()
                .keyPrefix(idempotencyPrefix(r)).operationTimeout(r.decisionTimeout()).build()));
    }

    /**
     * Where the records of {@link #idempotency} live: the section's {@code key-prefix} followed by
     * {@code idem:} ({@code sluice:lim:idem:} by default), so one prefix covers every key the edge writes.
     * No record key can be a limiter key: those continue with <code>{</code> after the prefix.
     */
    public static String idempotencyPrefix(StoreConfig.Redis r) {
        return r.keyPrefix() + "idem:";
    }

    /** The {@link RedisLimiterConfig} of a {@code store} section. */
    public static RedisLimiterConfig limiterConfig(StoreConfig.Redis r, TimeSource time) {
        return RedisLimiterConfig.builder()
                .keyPrefix(r.keyPrefix())
                .replicaCount(r.replicas())
                .decisionTimeout(r.decisionTimeout())
                .failureMode(r.failureMode())
                .denyCacheMaxAge(r.denyCacheMaxAge())
                .unavailableRetryAfter(r.unavailableRetryAfter())
                .concurrencyLease(r.concurrencyLease())
                .localTime(time)
                .build();
    }

    /**
     * What the start-up probe found.
     *
     * @param answered whether the store answered (always, for the in-memory store)
     * @param line one line for the operator: the store, and the round trip or why it did not answer
     */
    public record Probe(boolean answered, String line) {}

    /**
     * The start-up probe (SPEC §3.14): one {@code PING} to the Redis of a store {@link #open} made, waiting
     * at most {@code bound}. {@code sluice edge} prints its line, and does not start when it failed and
     * the section says {@code require-at-start: true}; otherwise it starts and the failure mode answers
     * until Redis does. The in-memory store always answers.
     *
     * @param time measures the round trip
     */
    public static Probe probe(StoreConfig config, LimiterStore store, TimeSource time, Duration bound) {
        if (!(config instanceof StoreConfig.Redis r)) {
            return new Probe(true, "store " + config);
        }
        RedisEndpoint endpoint = switch (store) {
            case RedisLimiterStore s -> s.endpoint();
            case LeasingLimiterStore l -> l.redis().endpoint();
            default -> throw new IllegalArgumentException("not a store EdgeStores.open made for " + r + ": " + store);
        };
        String where = "store " + r.maskedUrl();
        String cause;
        long start = time.nanoTime();
        RedisClusterAsyncCommands<String, String> commands = endpoint.commandsAnyway();
        if (commands == null) {
            cause = "not connected";
        } else {
            try {
                String pong = commands.ping().toCompletableFuture().get(bound.toNanos(), TimeUnit.NANOSECONDS);
                long micros = (time.nanoTime() - start) / 1_000;
                return new Probe(true, where + " answered " + pong + " in " + micros / 1_000 + "."
                        + micros % 1_000 / 100 + " ms");
            } catch (TimeoutException e) {
                cause = "no reply in " + bound.toMillis() + " ms";
            } catch (ExecutionException e) {
                cause = e.getCause() == null ? String.valueOf(e) : e.getCause().getClass().getSimpleName()
                        + (e.getCause().getMessage() == null ? "" : ": " + e.getCause().getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cause = "interrupted";
            }
        }
        String then = r.requireAtStart()
                ? "store.require-at-start is true: not starting"
                : r.failureMode() == FailureMode.FAIL_CLOSED
                        ? "starting; routes answer 503 until it answers"
                        : "starting; each replica decides locally at q/" + r.replicas() + " until it answers";
        return new Probe(false, where + " did not answer PING (" + cause + "); " + then);
    }
}
