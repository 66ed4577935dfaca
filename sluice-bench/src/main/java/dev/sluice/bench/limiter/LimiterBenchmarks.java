package dev.sluice.bench.limiter;

import com.google.common.util.concurrent.RateLimiter;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyStateSink;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.TimeSource;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The in-process decision of Sluice's {@link InMemoryLimiterStore} (its public API, as a user calls
 * it) against Bucket4j's lock-free local bucket, Resilience4j's {@code AtomicRateLimiter} and Guava's
 * {@code RateLimiter}. Every limiter reads the JVM's monotonic clock ({@link TimeSource#system()} is
 * {@code System.nanoTime()} for burst policies, as the peers use).
 *
 * <p>Hot-key cases run with 1 or 2 threads (chosen by {@link LimiterRun}); the limit there is 10^9
 * per second so every call is admitted (the path where a compare-and-set loop is contended). Keyed
 * cases spread calls over {@link KeySpace#KEYS} keys, uniformly or Zipf(1.0), with 100 requests per
 * second per key; the two-policy case adds a daily quota to the burst (Bucket4j: a second bandwidth).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LimiterBenchmarks {

    /** Admits everything a 2-core machine can ask: 10^9 per second. */
    static final long HOT_RATE_PER_SECOND = 1_000_000_000L;

    /** A daily quota no run can spend (10^13 requests; the packed counter holds up to 2^44). */
    static final long DAILY_QUOTA = 10_000_000_000_000L;

    @State(Scope.Benchmark)
    public static class Hot {
        InMemoryLimiterStore sluice;
        InMemoryLimiterStore.KeyHandle sluiceHandle;
        InMemoryLimiterStore.KeyHandle sluiceTwoHandle;
        Plan plan;
        Plan twoPolicyPlan;
        Bucket bucket4j;
        Bucket bucket4jTwo;
        ConcurrentHashMap<String, Bucket> bucket4jByKey;
        AtomicRateLimiter resilience4j;
        RateLimiter guava;

        @Setup(Level.Trial)
        public void setUp() {
            sluice = new InMemoryLimiterStore(TimeSource.system());
            plan = Plan.of("hot", BurstPolicy.of("burst", HOT_RATE_PER_SECOND, 1));
            twoPolicyPlan = Plan.of("hot-daily", BurstPolicy.of("burst", HOT_RATE_PER_SECOND, 1),
                    QuotaPolicy.daily("daily", DAILY_QUOTA));
            // held like the peers' bucket objects: the key is looked up once
            sluiceHandle = sluice.handle("hot-key-h", plan);
            sluiceTwoHandle = sluice.handle("hot-key-2h", twoPolicyPlan);
            bucket4j = Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(HOT_RATE_PER_SECOND)
                            .refillGreedy(HOT_RATE_PER_SECOND, Duration.ofSeconds(1)).build())
                    .build();
            bucket4jTwo = Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(HOT_RATE_PER_SECOND)
                            .refillGreedy(HOT_RATE_PER_SECOND, Duration.ofSeconds(1)).build())
                    .addLimit(Bandwidth.builder().capacity(DAILY_QUOTA)
                            .refillIntervally(DAILY_QUOTA, Duration.ofDays(1)).build())
                    .build();
            // a keyed Bucket4j as a server keeps it (one bucket per API key in a map), so the lookup that
            // Sluice's keyed store pays is paid by the peer too
            bucket4jByKey = new ConcurrentHashMap<>();
            bucket4jByKey.put("hot-key", Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(HOT_RATE_PER_SECOND)
                            .refillGreedy(HOT_RATE_PER_SECOND, Duration.ofSeconds(1)).build())
                    .build());
            resilience4j = new AtomicRateLimiter("hot", RateLimiterConfig.custom()
                    .limitForPeriod((int) HOT_RATE_PER_SECOND)
                    .limitRefreshPeriod(Duration.ofSeconds(1))
                    .timeoutDuration(Duration.ZERO)
                    .build());
            guava = RateLimiter.create(HOT_RATE_PER_SECOND);
        }
    }

    @Benchmark
    public Decision hotSluice(Hot s) {
        return s.sluice.decide("hot-key", s.plan, Costs.ONE);
    }

    /** The same decision and charge, answered as a boolean like the peers' (no {@code Decision} built). */
    @Benchmark
    public boolean hotSluiceTryAcquire(Hot s) {
        return s.sluice.tryAcquire("hot-key", s.plan, Costs.ONE);
    }

    /**
     * What a caller writing the {@code RateLimit} fields at once uses: the same decision and charge,
     * each policy's {@code r}/{@code t} handed to a per-thread sink, no {@code Decision} built.
     */
    @Benchmark
    public long hotSluiceSink(Hot s, Headers h) {
        return s.sluice.decide("hot-key", s.plan, Costs.ONE, h).ordinal() + h.remaining;
    }

    /** {@code decide} on a handle held like the peers' objects (no lookup by key per call). */
    @Benchmark
    public Decision hotSluiceHandle(Hot s) {
        return s.sluiceHandle.decide(Costs.ONE);
    }

    /** {@code decide} into a sink on a handle. */
    @Benchmark
    public long hotSluiceHandleSink(Hot s, Headers h) {
        return s.sluiceHandle.decide(Costs.ONE, h).ordinal() + h.remaining;
    }

    /** {@code tryAcquire} on a handle. */
    @Benchmark
    public boolean hotSluiceHandleTryAcquire(Hot s) {
        return s.sluiceHandle.tryAcquire(Costs.ONE);
    }

    /** Two policies, {@code decide} on a handle. */
    @Benchmark
    public Decision twoPolicySluiceHandle(Hot s) {
        return s.sluiceTwoHandle.decide(Costs.ONE);
    }

    /** Two policies, {@code decide} into a sink on a handle. */
    @Benchmark
    public long twoPolicySluiceHandleSink(Hot s, Headers h) {
        return s.sluiceTwoHandle.decide(Costs.ONE, h).ordinal() + h.remaining;
    }

    /** Bucket4j's like-for-like answer to {@code decide}: admitted, remaining tokens and the wait. */
    @Benchmark
    public ConsumptionProbe hotBucket4jProbe(Hot s) {
        return s.bucket4j.tryConsumeAndReturnRemaining(1);
    }

    /** A per-thread {@link PolicyStateSink} keeping the last values, as a header writer would read them. */
    @State(Scope.Thread)
    public static class Headers implements PolicyStateSink {
        long remaining;
        long resetSeconds;

        @Override
        public void state(Policy policy, long remaining, long resetSeconds, long used, long resetAtEpochSecond) {
            this.remaining = remaining;
            this.resetSeconds = resetSeconds;
        }
    }

    @Benchmark
    public boolean hotBucket4jKeyed(Hot s) {
        return s.bucket4jByKey.get("hot-key").tryConsume(1);
    }

    @Benchmark
    public boolean hotBucket4j(Hot s) {
        return s.bucket4j.tryConsume(1);
    }

    @Benchmark
    public boolean hotResilience4j(Hot s) {
        return s.resilience4j.acquirePermission();
    }

    @Benchmark
    public boolean hotGuava(Hot s) {
        return s.guava.tryAcquire();
    }

    @Benchmark
    public Decision twoPolicySluice(Hot s) {
        return s.sluice.decide("hot-key", s.twoPolicyPlan, Costs.ONE);
    }

    @Benchmark
    public boolean twoPolicySluiceTryAcquire(Hot s) {
        return s.sluice.tryAcquire("hot-key-2", s.twoPolicyPlan, Costs.ONE);
    }

    @Benchmark
    public boolean twoPolicyBucket4j(Hot s) {
        return s.bucket4jTwo.tryConsume(1);
    }

    @Benchmark
    public long twoPolicySluiceSink(Hot s, Headers h) {
        return s.sluice.decide("hot-key-3", s.twoPolicyPlan, Costs.ONE, h).ordinal() + h.remaining;
    }

    @Benchmark
    public ConsumptionProbe twoPolicyBucket4jProbe(Hot s) {
        return s.bucket4jTwo.tryConsumeAndReturnRemaining(1);
    }

    /** One million keys, each already decided once, and a pre-drawn stream of key indexes. */
    @State(Scope.Benchmark)
    public static class KeySpace {
        public static final int KEYS = 1_000_000;
        static final int STREAM = 1 << 22;

        public String distribution = "uniform";

        String[] keys;
        int[] stream;
        InMemoryLimiterStore sluice;
        Plan plan;
        ConcurrentHashMap<String, Bucket> bucket4j;
        int cursor;

        void build(String distribution) {
            keys = new String[KEYS];
            for (int i = 0; i < KEYS; i++) {
                keys[i] = "sk_live_" + i;
            }
            stream = KeyStreams.draw(distribution, KEYS, STREAM, 9L);
            sluice = new InMemoryLimiterStore(TimeSource.system());
            plan = Plan.of("keyed", BurstPolicy.of("burst", 100, 1));
            bucket4j = new ConcurrentHashMap<>();
        }

        Bucket bucket4jFor(String key) {
            return bucket4j.computeIfAbsent(key, k -> Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(100).refillGreedy(100, Duration.ofSeconds(1)).build())
                    .build());
        }

        String next() {
            int c = cursor;
            cursor = (c + 1) & (STREAM - 1);
            return keys[stream[c]];
        }
    }

    @State(Scope.Benchmark)
    public static class Uniform extends KeySpace {
        @Setup(Level.Trial)
        public void setUp() {
            build("uniform");
            for (String k : keys) {
                sluice.decide(k, plan, Costs.ONE);
                bucket4jFor(k).tryConsume(1);
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Zipf extends KeySpace {
        @Setup(Level.Trial)
        public void setUp() {
            build("zipf");
            for (String k : keys) {
                sluice.decide(k, plan, Costs.ONE);
                bucket4jFor(k).tryConsume(1);
            }
        }
    }

    @Benchmark
    public Decision uniformSluice(Uniform s) {
        return s.sluice.decide(s.next(), s.plan, Costs.ONE);
    }

    @Benchmark
    public boolean uniformBucket4j(Uniform s) {
        return s.bucket4jFor(s.next()).tryConsume(1);
    }

    @Benchmark
    public Decision zipfSluice(Zipf s) {
        return s.sluice.decide(s.next(), s.plan, Costs.ONE);
    }

    @Benchmark
    public boolean zipfBucket4j(Zipf s) {
        return s.bucket4jFor(s.next()).tryConsume(1);
    }
}
