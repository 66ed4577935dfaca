package dev.sluice.cli.edge;

import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.limiter.LeasingLimiterStore;
import dev.sluice.redis.limiter.RedisLimiterStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.Objects;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The Redis limiter store's counters on the edge's Prometheus endpoint (SPEC §3.13, §3.14: decisions Redis did
 * not make are counted), read from {@link RedisLimiterStore#stats()} and its endpoint at each scrape:
 * <ul>
 *   <li>{@code sluice_edge_store_decisions_total{answered_by}}: {@code redis}, {@code deny_cache} (a key Redis
 *       had just refused, answered locally), {@code fallback} (Redis down or slow: the local limiter at
 *       {@code q/N}, fail-open-degraded), {@code unavailable} (fail-closed: 503);</li>
 *   <li>{@code sluice_edge_store_redis_up}: 1 while Redis is considered up, 0 while down;</li>
 *   <li>{@code sluice_edge_store_redis_failures_total{kind}}: {@code timeout} (no answer within the decision
 *       timeout), {@code error} (refused, {@code BUSY}, a script error);</li>
 *   <li>{@code sluice_edge_store_redis_down_total}: times Redis was marked down.</li>
 * </ul>
 * It lives here, beside {@link EdgeStores}, because the edge module does not depend on Redis; the
 * {@code sluice edge} command passes it with {@code EdgeOptions.withMeterBinders}. Thread-safe.
 */
public final class RedisStoreMeters implements MeterBinder {

    private final RedisLimiterStore redis;

    public RedisStoreMeters(RedisLimiterStore redis) {
        this.redis = Objects.requireNonNull(redis, "redis");
    }

    /** The meters of {@code store} when it is one {@link EdgeStores#open} made for Redis; empty for memory. */
    public static Optional<MeterBinder> of(LimiterStore store) {
        return switch (store) {
            case RedisLimiterStore s -> Optional.of(new RedisStoreMeters(s));
            case LeasingLimiterStore l -> Optional.of(new RedisStoreMeters(l.redis()));
            default -> Optional.empty();
        };
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        decisions(registry, "redis", s -> s.stats().redisDecisions());
        decisions(registry, "deny_cache", s -> s.stats().denyCacheHits());
        decisions(registry, "fallback", s -> s.stats().fallbackDecisions());
        decisions(registry, "unavailable", s -> s.stats().unavailableDecisions());
        FunctionCounter.builder("sluice.edge.store.redis.failures", redis, s -> s.stats().timeouts())
                .description("Redis calls that failed").tag("kind", "timeout").register(registry);
        FunctionCounter.builder("sluice.edge.store.redis.failures", redis, s -> s.stats().errors())
                .description("Redis calls that failed").tag("kind", "error").register(registry);
        FunctionCounter.builder("sluice.edge.store.redis.down", redis, s -> s.endpoint().stats().downTransitions())
                .description("Times Redis was marked down").register(registry);
        Gauge.builder("sluice.edge.store.redis.up", redis, s -> s.endpoint().isUp() ? 1 : 0)
                .description("1 while Redis is considered up, 0 while the store decides without it")
                .register(registry);
    }

    private void decisions(MeterRegistry registry, String answeredBy, ToDoubleFunction<RedisLimiterStore> count) {
        FunctionCounter.builder("sluice.edge.store.decisions", redis, count)
                .description("Limiter decisions by what answered them").tag("answered_by", answeredBy)
                .register(registry);
    }
}
