package dev.sluice.redis.limiter;

import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisTestSupport;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A bounded measurement (not a test; surefire does not run it) of decisions per second and latency
 * per decision of {@link RedisLimiterStore} against the Redis at {@code sluice.redis.uri} (default
 * 127.0.0.1:6379), one shared connection, server clock (production mode):
 * <ol>
 *   <li>sequential: one caller, one decision at a time ({@code decide});</li>
 *   <li>pipelined: {@code decideAsync} with a window of 64 decisions in flight on the same connection;</li>
 *   <li>hot key over its limit: answered by the deny cache.</li>
 * </ol>
 * Plan: SPEC §2.1's Free plan shape (burst + daily), with limits high enough that every decision is
 * admitted and writes both keys (the costlier path). Run with:
 * {@code java -cp <test classpath> dev.sluice.redis.limiter.RedisLimiterBench [decisions]}.
 */
public final class RedisLimiterBench {

    private static Plan PLAN = Plan.of("bench", BurstPolicy.of("burst", 1_000_000, 60),
            QuotaPolicy.daily("daily", 100_000_000));

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
        if (args.length > 1 && args[1].equals("concurrency")) {
            // the same plan with at most 64 in flight: each decision adds a permit, then is released
            // (one more round trip, counted in the rate, not in the decision's latency)
            PLAN = Plan.of("bench", BurstPolicy.of("burst", 1_000_000, 60), QuotaPolicy.daily("daily", 100_000_000),
                    dev.sluice.limiter.ConcurrencyPolicy.of("inflight", 64));
            System.out.println("plan with a concurrency policy (q=64): decide + release per request");
        }
        String prefix = RedisTestSupport.newPrefix("bench");
        RedisEndpoint endpoint = RedisEndpoint.connect(RedisTestSupport.URI);
        RedisTestSupport.awaitUp(endpoint);
        try (RedisLimiterStore store = new RedisLimiterStore(endpoint,
                RedisLimiterConfig.builder().keyPrefix(prefix).build())) {
            System.out.println("load average before: " + loadAverage());
            sequential(store, n / 10, false); // warm-up: JIT, script load
            long[] before = evalshaStats();
            sequential(store, n, true);
            long[] after = evalshaStats();
            System.out.printf("  redis server time per script call: %.1f us (INFO commandstats, %d calls)%n",
                    (after[1] - before[1]) / (double) Math.max(1, after[0] - before[0]), after[0] - before[0]);
            pipelined(store, n / 10, 64, false);
            for (int window : new int[] {8, 64}) {
                pipelined(store, n, window, true);
                RedisTestSupport.awaitUp(endpoint); // a phase that overloaded it must not spill into the next
            }
            hotKey(store, n);
            System.out.println(store.stats());
            System.out.println("load average after: " + loadAverage());
        } finally {
            RedisTestSupport.deletePrefix(prefix);
            endpoint.close();
            System.exit(0);
        }
    }

    /** {calls, usec} of EVALSHA from the server's INFO commandstats. */
    private static long[] evalshaStats() {
        String info = RedisTestSupport.admin().info("commandstats");
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:")) {
                long calls = 0;
                long usec = 0;
                for (String kv : line.substring(line.indexOf(':') + 1).split(",")) {
                    String[] p = kv.split("=");
                    if (p[0].equals("calls")) {
                        calls = Long.parseLong(p[1]);
                    } else if (p[0].equals("usec")) {
                        usec = Long.parseLong(p[1]);
                    }
                }
                return new long[] {calls, usec};
            }
        }
        return new long[] {0, 0};
    }

    private static String loadAverage() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).trim();
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static void sequential(RedisLimiterStore store, int n, boolean print) {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            Decision d = store.decide("sk_" + (i % 1_000), PLAN, Costs.ONE);
            h.recordValue(System.nanoTime() - t);
            if (PLAN.hasConcurrencyPolicy() && d instanceof dev.sluice.limiter.Allowed a) {
                store.release("sk_" + (i % 1_000), a);
            }
        }
        report(print, "sequential (1 caller)", n, System.nanoTime() - start, h);
    }

    private static void pipelined(RedisLimiterStore store, int n, int window, boolean print) throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        Semaphore inFlight = new Semaphore(window);
        AtomicLong fallbacks = new AtomicLong();
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicLong left = new AtomicLong(n);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            inFlight.acquire();
            long t = System.nanoTime();
            String key = "sk_" + (i % 1_000);
            store.decideAsync(key, PLAN, Costs.ONE).thenCompose(d -> {
                long took = System.nanoTime() - t;
                synchronized (h) {
                    h.recordValue(took);
                }
                return PLAN.hasConcurrencyPolicy() && d instanceof dev.sluice.limiter.Allowed a
                        ? store.releaseAsync(key, a).thenApply(x -> d) : CompletableFuture.completedFuture(d);
            }).whenComplete((Decision d, Throwable e) -> {
                if (e != null || store.isFallback(d)) {
                    fallbacks.incrementAndGet();
                }
                inFlight.release();
                if (left.decrementAndGet() == 0) {
                    done.complete(null);
                }
            });
        }
        done.get(60, TimeUnit.SECONDS);
        report(print, "pipelined (" + window + " in flight)", n, System.nanoTime() - start, h);
        if (print && fallbacks.get() > 0) {
            System.out.println("  of which answered without redis: " + fallbacks.get());
        }
    }

    private static void hotKey(RedisLimiterStore store, int n) {
        Plan tiny = Plan.of("tiny", BurstPolicy.of("burst", 5, 3_600));
        for (int i = 0; i < 6; i++) {
            store.decide("sk_hot", tiny, Costs.ONE);
        }
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            long t = System.nanoTime();
            store.decide("sk_hot", tiny, Costs.ONE);
            h.recordValue(System.nanoTime() - t);
        }
        report(true, "hot key over its limit (deny cache; 1 round trip per second at most)", n,
                System.nanoTime() - start, h);
    }

    private static void report(boolean print, String what, int n, long nanos, Histogram h) {
        if (!print) {
            return;
        }
        System.out.printf("%-70s %,9d decisions %,10.0f /s  p50 %6.1f us  p99 %7.1f us  p99.9 %7.1f us  max %8.1f us%n",
                what, n, n * 1e9 / nanos, h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(99) / 1e3,
                h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
    }

    private RedisLimiterBench() {}
}
