package dev.sluice.cli.edge;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.idempotency.IdempotencyConfig;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisEndpointConfig;
import dev.sluice.redis.idempotency.RedisIdempotencyConfig;
import dev.sluice.redis.idempotency.RedisIdempotencyStore;
import dev.sluice.redis.limiter.LeasingLimiterStore;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.TimeSource;
import java.util.Objects;
import java.util.Optional;

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
     * {@code sluice:idem:}, each operation bounded by the section's {@code decision-timeout}), so a retry
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
                .operationTimeout(r.decisionTimeout()).build()));
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
                .localTime(time)
                .build();
    }
}
