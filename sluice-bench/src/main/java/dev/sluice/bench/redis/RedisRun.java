package dev.sluice.bench.redis;

import dev.sluice.bench.Args;
import dev.sluice.bench.Load;
import dev.sluice.bench.Table;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Unavailable;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.AsyncBucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Decisions per second and latency of Sluice's {@link RedisLimiterStore} against Bucket4j's Lettuce
 * proxy manager (compare-and-swap, the builder's default) on the same Redis, database and policy
 * (a token bucket of 10^6 per second, so every call is admitted), and the ceilings of that Redis:
 * {@code redis-benchmark} calling a trivial {@code EVALSHA} ({@code return 1}), and calling Sluice's
 * own script exactly as the store sends it ({@link RedisLimiterStore#decisionCommand}). Each case runs A B A B in
 * every round. Keys live under {@code sluice-bench:} in database {@code --db} (15) and are deleted at
 * the end.
 */
public final class RedisRun {

    static final long RATE = 1_000_000;

    private record Case(String name, int outstanding, int keys) {}

    private RedisRun() {}

    public static String run(Args args) throws Exception {
        int rounds = args.integer("rounds", 5);
        int warmupMs = args.integer("warmup-ms", 500);
        int measureMs = args.integer("measure-ms", 2000);
        int db = args.integer("db", 15);
        int pipelined = args.integer("pipelined", 256);
        String host = args.text("host", "127.0.0.1");
        int port = args.integer("port", 6379);
        String uri = "redis://" + host + ":" + port + "/" + db;
        // redis-benchmark runs a count, not a time: these keep each ceiling run to seconds on a busy machine
        int single = args.integer("ceiling-requests-c1", 20_000);
        int many = args.integer("ceiling-requests", 150_000);

        List<Case> cases = List.of(
                new Case("hot key, 1 outstanding", 1, 1),
                new Case("hot key, 64 outstanding", 64, 1),
                new Case("10,000 keys, 1 outstanding", 1, 10_000),
                new Case("10,000 keys, 64 outstanding", 64, 10_000),
                new Case("hot key, " + pipelined + " outstanding (pipelined)", pipelined, 1),
                new Case("10,000 keys, " + pipelined + " outstanding (pipelined)", pipelined, 10_000));

        Plan plan = Plan.of("bench", BurstPolicy.of("burst", RATE, 1));
        BucketConfiguration b4jConfig = BucketConfiguration.builder()
                .addLimit(l -> l.capacity(RATE).refillGreedy(RATE, Duration.ofSeconds(1)))
                .build();
        String[] keys = new String[10_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "sk_live_" + i;
        }

        Table rate = new Table("decisions/s", true);
        Table p99 = new Table("µs", false);
        AtomicLong sluiceFallbacks = new AtomicLong();

        RedisClient client = RedisClient.create(uri);
        try (RedisLimiterStore sluice = RedisLimiterStore.open(uri, RedisLimiterConfig.builder()
                        .keyPrefix("sluice-bench:sluice:")
                        .decisionTimeout(Duration.ofSeconds(2))
                        .build());
             StatefulRedisConnection<byte[], byte[]> b4jConnection = client.connect(ByteArrayCodec.INSTANCE);
             StatefulRedisConnection<String, String> admin = client.connect(StringCodec.UTF8)) {
            LettuceBasedProxyManager<byte[]> b4j = Bucket4jLettuce.casBasedBuilder(b4jConnection)
                    .expirationAfterWrite(ExpirationAfterWriteStrategy
                            .basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                    .build();
            AsyncBucketProxy[] b4jBuckets = new AsyncBucketProxy[keys.length];
            for (int i = 0; i < keys.length; i++) {
                b4jBuckets[i] = b4j.asAsync().builder().build(
                        ("sluice-bench:b4j:" + keys[i]).getBytes(StandardCharsets.UTF_8),
                        () -> CompletableFuture.completedFuture(b4jConfig));
            }
            String sha = admin.sync().scriptLoad("return 1");

            for (int round = 1; round <= rounds; round++) {
                for (Case c : cases) {
                    int n = c.keys();
                    IntFunction<CompletionStage<?>> sluiceCall = i -> sluice
                            .decideAsync(keys[i % n], plan, Costs.ONE)
                            .thenApply(d -> {
                                if (sluice.isFallback(d) || d instanceof Unavailable) {
                                    sluiceFallbacks.incrementAndGet();
                                }
                                return d;
                            });
                    IntFunction<CompletionStage<?>> b4jCall = i -> b4jBuckets[i % n].tryConsume(1);
                    record(rate, p99, c.name() + ": Sluice", Load.run(c.outstanding(), warmupMs, measureMs, sluiceCall));
                    record(rate, p99, c.name() + ": Bucket4j", Load.run(c.outstanding(), warmupMs, measureMs, b4jCall));
                    System.err.printf(Locale.ROOT, "round %d/%d %s done%n", round, rounds, c.name());
                }
                for (int conc : new int[] {1, 64}) {
                    double ceiling = redisBenchmark(host, port, db, conc, 1, conc == 1 ? single : many, 0,
                            List.of("EVALSHA", sha, "0"));
                    rate.add("EVALSHA ceiling, -c " + conc, ceiling);
                }
                double pipedCeiling = redisBenchmark(host, port, db, 16, 16, 2 * many, 0, List.of("EVALSHA", sha, "0"));
                rate.add("EVALSHA ceiling, -c 16 -P 16", pipedCeiling);
                // Sluice's own script, exactly as the store sends it (server TIME), on one key and on
                // 10,000 (redis-benchmark's __rand_int__ in the hash tag, -r 10000)
                List<String> hot = sluice.decisionCommand("redis-benchmark-hot", plan, Costs.ONE);
                List<String> spread = spreadKey(hot);
                rate.add("Sluice script, hot key, -c 1", redisBenchmark(host, port, db, 1, 1, single, 0, hot));
                rate.add("Sluice script, hot key, -c 64", redisBenchmark(host, port, db, 64, 1, many, 0, hot));
                rate.add("Sluice script, hot key, -c 16 -P 16", redisBenchmark(host, port, db, 16, 16, many, 0, hot));
                rate.add("Sluice script, 10,000 keys, -c 64",
                        redisBenchmark(host, port, db, 64, 1, many, 10_000, spread));
                rate.add("Sluice script, 10,000 keys, -c 16 -P 16",
                        redisBenchmark(host, port, db, 16, 16, many, 10_000, spread));
            }
            deleteKeys(admin.sync());
        } finally {
            client.shutdown();
        }

        StringBuilder md = new StringBuilder();
        md.append("### Sluice vs Bucket4j Lettuce (decisions/s, median of ").append(rounds).append(" interleaved rounds)\n\n");
        md.append(rate.ratioHeader("Bucket4j"));
        for (Case c : cases) {
            // one round trip each is the floor at 1 in flight; with calls in flight Sluice should lead
            double target = c.outstanding() == 1 ? 1.0 : 1.2;
            md.append(rate.ratioRow(c.name(), c.name() + ": Sluice", c.name() + ": Bucket4j", target));
        }
        md.append("\n### Sluice vs the trivial-EVALSHA ceiling (decisions/s)\n\n");
        md.append(rate.ratioHeader("EVALSHA `return 1`"));
        md.append(rate.ratioRow("hot key, 1 outstanding vs redis-benchmark -c 1", "hot key, 1 outstanding: Sluice", "EVALSHA ceiling, -c 1", Double.NaN));
        md.append(rate.ratioRow("hot key, 64 outstanding vs -c 64", "hot key, 64 outstanding: Sluice", "EVALSHA ceiling, -c 64", 0.8));
        md.append(rate.ratioRow("10,000 keys, 64 outstanding vs -c 64", "10,000 keys, 64 outstanding: Sluice", "EVALSHA ceiling, -c 64", 0.8));
        md.append(rate.ratioRow("hot key, pipelined vs -c 16 -P 16", cases.get(4).name() + ": Sluice", "EVALSHA ceiling, -c 16 -P 16", Double.NaN));
        md.append("\n### Sluice vs its own script run by redis-benchmark (the script's ceiling on this server)\n\n");
        md.append(rate.ratioHeader("redis-benchmark, Sluice's script"));
        md.append(rate.ratioRow("hot key, 1 outstanding vs -c 1", "hot key, 1 outstanding: Sluice", "Sluice script, hot key, -c 1", Double.NaN));
        md.append(rate.ratioRow("hot key, 64 outstanding vs -c 64", "hot key, 64 outstanding: Sluice", "Sluice script, hot key, -c 64", Double.NaN));
        md.append(rate.ratioRow("10,000 keys, 64 outstanding vs -c 64", "10,000 keys, 64 outstanding: Sluice", "Sluice script, 10,000 keys, -c 64", Double.NaN));
        md.append(rate.ratioRow("hot key, pipelined vs -c 16 -P 16", cases.get(4).name() + ": Sluice", "Sluice script, hot key, -c 16 -P 16", 0.8));
        md.append(rate.ratioRow("10,000 keys, pipelined vs -c 16 -P 16", cases.get(5).name() + ": Sluice", "Sluice script, 10,000 keys, -c 16 -P 16", 0.8));
        double piped = Math.max(rate.median(cases.get(4).name() + ": Sluice"), rate.median(cases.get(5).name() + ": Sluice"));
        md.append("\nPipelined target ≥ 150,000 decisions/s: best pipelined median ").append(Table.fmt(piped))
                .append("/s (").append(piped >= 150_000 ? "met" : "missed").append(").\n")
                .append(Table.target("Redis pipelined decisions/s", "≥ 150,000/s", Table.fmt(piped) + "/s", piped >= 150_000));
        md.append("\nSluice decisions answered by the local fallback or unavailable (not by Redis): ")
                .append(sluiceFallbacks.get()).append(" (decision timeout set to 2 s for the run).\n");
        md.append("\n### p99 latency (µs, median of rounds)\n\n");
        md.append(p99.ratioHeader("peer"));
        for (Case c : cases) {
            md.append(p99.ratioRow(c.name(), c.name() + ": Sluice", c.name() + ": Bucket4j", Double.NaN));
        }
        md.append("\n### Raw numbers: decisions/s\n\n").append(rate.rawMarkdown());
        md.append("\n### Raw numbers: p99 latency\n\n").append(p99.rawMarkdown());
        return md.toString();
    }

    private static void record(Table rate, Table p99, String label, Load.Result r) {
        rate.add(label, r.perSecond());
        p99.add(label, r.p99Micros());
        if (r.failures() > 0) {
            System.err.printf("%s: %d failed calls%n", label, r.failures());
        }
    }

    /** {@code command} with the hash tag of its one key replaced by {@code __rand_int__} (for {@code -r}). */
    static List<String> spreadKey(List<String> command) {
        List<String> spread = new ArrayList<>(command);
        String key = spread.get(3);
        spread.set(3, key.substring(0, key.indexOf('{') + 1) + "__rand_int__" + key.substring(key.indexOf('}')));
        return spread;
    }

    /**
     * Requests per second of {@code redis-benchmark} sending {@code command} ({@code EVALSHA ...});
     * {@code keyspace} &gt; 0 passes {@code -r keyspace} (its {@code __rand_int__} placeholders).
     */
    static double redisBenchmark(String host, int port, int db, int clients, int pipeline, int requests, int keyspace,
            List<String> command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("redis-benchmark", "-h", host, "-p", String.valueOf(port),
                "--dbnum", String.valueOf(db), "-c", String.valueOf(clients), "-P", String.valueOf(pipeline),
                "-n", String.valueOf(requests), "--csv"));
        if (keyspace > 0) {
            cmd.addAll(List.of("-r", String.valueOf(keyspace)));
        }
        cmd.addAll(command);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String last = null;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.startsWith("\"EVALSHA")) {
                    last = line;
                }
            }
        }
        if (!p.waitFor(120, TimeUnit.SECONDS) || last == null) {
            throw new IllegalStateException("redis-benchmark gave no result: " + String.join(" ", cmd));
        }
        // "EVALSHA ...","rps","avg_latency_ms",...
        String[] fields = last.split("\",\"");
        return Double.parseDouble(fields[1].replace("\"", ""));
    }

    private static void deleteKeys(RedisCommands<String, String> redis) {
        ScanCursor cursor = ScanCursor.INITIAL;
        long deleted = 0;
        do {
            KeyScanCursor<String> page = redis.scan(cursor, ScanArgs.Builder.matches("sluice-bench:*").limit(1000));
            if (!page.getKeys().isEmpty()) {
                deleted += redis.del(page.getKeys().toArray(new String[0]));
            }
            cursor = page;
        } while (!cursor.isFinished());
        System.err.println("deleted " + deleted + " benchmark keys");
    }
}
