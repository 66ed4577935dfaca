package dev.sluice.bench.limiter;

import dev.sluice.bench.Args;
import dev.sluice.bench.Table;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.TimeSource;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.local.LocalBucketBuilder;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Heap per key of 1,000,000 idle-but-not-full keys (each decided once under a burst of 100 per hour,
 * so none is full and none is evicted), in Sluice's {@link InMemoryLimiterStore} and in a
 * {@code ConcurrentHashMap<String, Bucket>} of Bucket4j local buckets: heap used after
 * {@code System.gc()} × 3 with the structure held, minus the same with only the key Strings held.
 * The key Strings are the caller's in both and are not counted.
 */
public final class Footprint {

    static final int KEYS = 1_000_000;

    private Footprint() {}

    public static String run(Args args) {
        int rounds = args.integer("rounds", 5);
        int keys = args.integer("keys", KEYS);
        Table table = new Table("B/key", false);
        String[] names = new String[keys];
        for (int i = 0; i < keys; i++) {
            names[i] = "sk_live_" + i;
        }
        Plan one = Plan.of("burst", BurstPolicy.of("burst", 100, 3600));
        Plan two = Plan.of("burst+daily", BurstPolicy.of("burst", 100, 3600), QuotaPolicy.daily("daily", 10_000));
        for (int round = 1; round <= rounds; round++) {
            table.add("1 policy: Sluice store", perKey(names, () -> sluice(names, one)));
            table.add("1 policy: Bucket4j bucket per key in a ConcurrentHashMap", perKey(names, () -> bucket4j(names, 1)));
            table.add("2 policies: Sluice store", perKey(names, () -> sluice(names, two)));
            table.add("2 policies: Bucket4j (2 bandwidths) per key in a ConcurrentHashMap", perKey(names, () -> bucket4j(names, 2)));
            table.add("the map alone: ConcurrentHashMap<String, Boolean> (entry + table slot)", perKey(names, () -> mapOnly(names)));
            System.err.printf("round %d/%d done%n", round, rounds);
        }
        StringBuilder md = new StringBuilder();
        md.append("### Bytes per key (median of ").append(rounds).append(" interleaved rounds, ")
                .append(String.format("%,d", keys)).append(" keys)\n\n");
        md.append(table.ratioHeader("Bucket4j"));
        md.append(table.ratioRow("1 policy", "1 policy: Sluice store", "1 policy: Bucket4j bucket per key in a ConcurrentHashMap", Double.NaN));
        md.append(table.ratioRow("2 policies", "2 policies: Sluice store", "2 policies: Bucket4j (2 bandwidths) per key in a ConcurrentHashMap", Double.NaN));
        double map = table.median("the map alone: ConcurrentHashMap<String, Boolean> (entry + table slot)");
        double oneB = table.median("1 policy: Sluice store");
        double twoB = table.median("2 policies: Sluice store");
        md.append("\nThe figures above include the map entry and table slot (everything but the key String). ")
                .append("A `ConcurrentHashMap<String, Boolean>` of the same keys costs ").append(Table.fmt(map))
                .append(" B/key; less that, the state itself:\n\n")
                .append("| plan | Sluice state (B/key) | per policy | Bucket4j bucket (B/key) | target ≤ 64 B/key/policy |\n|---|---:|---:|---:|---|\n")
                .append("| 1 policy | ").append(Table.fmt(oneB - map)).append(" | ").append(Table.fmt(oneB - map)).append(" | ")
                .append(Table.fmt(table.median("1 policy: Bucket4j bucket per key in a ConcurrentHashMap") - map)).append(" | ")
                .append(oneB - map <= 64 ? "met" : "missed").append(" |\n")
                .append("| 2 policies | ").append(Table.fmt(twoB - map)).append(" | ").append(Table.fmt((twoB - map) / 2)).append(" | ")
                .append(Table.fmt(table.median("2 policies: Bucket4j (2 bandwidths) per key in a ConcurrentHashMap") - map)).append(" | ")
                .append((twoB - map) / 2 <= 64 ? "met" : "missed").append(" |\n")
                .append(Table.target("state per key per policy, 1 policy", "≤ 64 B", Table.fmt(oneB - map) + " B", oneB - map <= 64))
                .append(Table.target("state per key per policy, 2 policies", "≤ 64 B", Table.fmt((twoB - map) / 2) + " B", (twoB - map) / 2 <= 64));
        md.append("\n### Raw numbers\n\n").append(table.rawMarkdown());
        return md.toString();
    }

    private static Object sluice(String[] names, Plan plan) {
        InMemoryLimiterStore store = new InMemoryLimiterStore(TimeSource.system());
        for (String k : names) {
            store.decide(k, plan, Costs.ONE);
        }
        if (store.keyCount() != names.length) {
            throw new IllegalStateException("store holds " + store.keyCount() + " keys, expected " + names.length);
        }
        return store;
    }

    private static Object bucket4j(String[] names, int bandwidths) {
        ConcurrentHashMap<String, Bucket> map = new ConcurrentHashMap<>();
        for (String k : names) {
            LocalBucketBuilder b = Bucket.builder()
                    .addLimit(Bandwidth.builder().capacity(100).refillGreedy(100, Duration.ofHours(1)).build());
            if (bandwidths == 2) {
                b.addLimit(Bandwidth.builder().capacity(10_000).refillIntervally(10_000, Duration.ofDays(1)).build());
            }
            Bucket bucket = b.build();
            bucket.tryConsume(1);
            map.put(k, bucket);
        }
        return map;
    }

    private static Object mapOnly(String[] names) {
        ConcurrentHashMap<String, Boolean> map = new ConcurrentHashMap<>();
        for (String k : names) {
            map.put(k, Boolean.TRUE);
        }
        return map;
    }

    private static double perKey(String[] names, java.util.function.Supplier<Object> build) {
        long base = usedAfterGc();
        Object held = build.get();
        long with = usedAfterGc();
        double perKey = (with - base) / (double) names.length;
        if (held.hashCode() == 42 && names.length == 0) {
            System.err.println("unreachable"); // keeps `held` alive until after the measurement
        }
        return perKey;
    }

    private static long usedAfterGc() {
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return mx.getHeapMemoryUsage().getUsed();
    }
}
