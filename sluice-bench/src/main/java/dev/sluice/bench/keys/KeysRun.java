package dev.sluice.bench.keys;

import dev.sluice.bench.Args;
import dev.sluice.bench.Table;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.decision.ProtectedDecider;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.edge.keys.KeySource;
import dev.sluice.keys.CachingKeySource;
import dev.sluice.keys.KeyStoreConfig;
import dev.sluice.keys.KeyStores;
import dev.sluice.limiter.idempotency.InMemoryIdempotencyStore;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.TimeSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.HdrHistogram.Histogram;
import org.postgresql.PGConnection;

/**
 * The PostgreSQL key store against the in-memory key file (issue 18, part 2), in one process:
 * <ol>
 *   <li><b>load</b>: {@code --keys} (1,000,000) keys into a schema of their own ({@code --schema}, dropped at
 *       the start and at the end), hashed as the store hashes them ({@link KeyHashing}, SHA-256), by
 *       {@code COPY} in one transaction (the change-notification trigger off meanwhile: an initial import,
 *       no edge caches anything yet);</li>
 *   <li><b>decisions/s at a 99 % cache hit rate</b> through the edge's own decision
 *       ({@link ProtectedDecider#assemble}, as {@code EdgeServer} builds it, with the in-memory limiter
 *       store, without Netty): the same request stream against a decider whose keys are listed in its
 *       configuration file and one whose keys come from the store's cache ({@link CachingKeySource}), rounds
 *       interleaved file, store, file, store; {@code --threads} callers stand for the event loops, a miss
 *       does not block them (up to 256 misses in flight each, as many connections would be);</li>
 *   <li><b>cold miss</b>: the latency of a decision on a key in PostgreSQL and not in memory, one at a
 *       time (p50, p99, p99.9);</li>
 *   <li><b>flood</b>: callers sending random keys that do not exist as fast as they can, with the store's
 *       default miss budget (200 lookups/s), with the budget lifted, and with 1,000 unknown keys sent over
 *       and over (the negative cache); the database's own count of lookups on the table
 *       ({@code pg_stat_user_tables}, read after the pool closed so every backend has flushed) beside the
 *       cache's count, and what the callers got.</li>
 * </ol>
 */
public final class KeysRun {

    private static final String ROUTE_PATH = "/v1/items";
    private static final String PLANS = """
            plans:
              bench:
                policies:
                  - { name: burst, kind: burst, q: 1000000, w: 1 }
                  - { name: daily, kind: quota, q: 100000000, window: daily }
            """;

    private KeysRun() {}

    /** A key of the population: 35 characters, like the store's own ({@code sk_} and 32 more). */
    static String token(int i) {
        return String.format(Locale.ROOT, "sk_bench_%026d", i);
    }

    /**
     * Runs every step and returns the Markdown of {@code bench/results/keys.md} (without its header, which
     * {@code bench/run.sh} writes). Options ({@code --name value}): {@code keys} (1,000,000), {@code hot} (10,000
     * keys), {@code rounds} (10), {@code decisions} per round (300,000), {@code threads} (2), {@code cold-samples}
     * (10,000), {@code flood-seconds} (5), {@code profile} (1: JFR when the target is missed), {@code edge-rounds} (5), {@code edge-seconds} (5 per wrk
     * run; 0 leaves the edge out), {@code edge-span} (2,500 cold keys per wrk thread and round), {@code postgresql}
     * (a JDBC URL), {@code schema} ({@code bench_keys}), {@code quick} ({@code true}: a smoke run, tens of seconds).
     *
     * @throws IllegalArgumentException when {@code keys} is too few for the other options
     * @throws java.sql.SQLException when PostgreSQL cannot be reached or refuses the load
     */
    public static String run(Args args) throws Exception {
        // --quick true: a smoke run of every step (tens of seconds), not figures to quote
        boolean quick = Boolean.parseBoolean(args.text("quick", "false"));
        int population = args.integer("keys", quick ? 100_000 : 1_000_000);
        int hot = args.integer("hot", quick ? 1_000 : 10_000);
        int rounds = args.integer("rounds", quick ? 1 : 10);
        int decisions = args.integer("decisions", quick ? 100_000 : 300_000);
        int threads = args.integer("threads", 2);
        int coldSamples = args.integer("cold-samples", quick ? 500 : 10_000);
        int floodSeconds = args.integer("flood-seconds", quick ? 1 : 5);
        boolean profile = args.integer("profile", 1) == 1;
        int edgeRounds = args.integer("edge-rounds", quick ? 1 : 5);
        int edgeSeconds = args.integer("edge-seconds", quick ? 1 : 5);
        int edgeSpan = args.integer("edge-span", quick ? 500 : 2_500);
        String url = args.text("postgresql", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        String schema = args.text("schema", "bench_keys");
        int hitPercent = 99;
        int coldPerRound = decisions / 100 * (100 - hitPercent);
        // the rounds, one warm-up and one profiled round of the 99 % stream, each with keys of its own not yet in memory
        int streamRounds = rounds + 2;
        int coldNeeded = coldPerRound * streamRounds;
        int edgeKeys = edgeSeconds > 0 ? EdgeRounds.coldKeys(edgeRounds, edgeSpan) : 0;
        if (hot + coldNeeded + coldSamples + edgeKeys > population) {
            throw new IllegalArgumentException("--keys " + population + " is fewer than the hot set, the cold keys of "
                    + "every round and the cold-miss samples need (" + (hot + coldNeeded + coldSamples + edgeKeys) + ")");
        }
        StringBuilder md = new StringBuilder();
        try (Connection admin = DriverManager.getConnection(url)) {
            exec(admin, "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
            try {
                // a name of this run's own on the store's connections: their backends' CPU time is counted
                String appName = "sluice-keys-bench-" + ProcessHandle.current().pid();
                KeyStoreConfig base = KeyStoreConfig.of(url + (url.contains("?") ? "&" : "?") + "ApplicationName="
                        + appName).withSchema(schema);
                // cache larger than every key the stream uses, and no miss refused: the rounds measure misses served
                KeyStoreConfig served = base.withCacheSize(Math.max(100_000, 2 * (hot + coldNeeded + coldSamples)))
                        .withMissLookupsPerSecond(1_000_000);
                try (KeyStores store = KeyStores.open(served, KeyIds.DEFAULT, TimeSource.system())) {
                    md.append(load(admin, schema, population));
                    CpuMeter cpu = new CpuMeter(admin, appName);
                    Throughput t = throughput(store.source(), cpu, hot, rounds, decisions, hitPercent, threads, profile);
                    md.append(t.markdown);
                    md.append(coldMiss(store.source(), hot + coldNeeded, coldSamples));
                    if (edgeSeconds > 0) {
                        md.append(EdgeRounds.run(store.source(), cpu, PLANS, hot, hot + coldNeeded + coldSamples,
                                edgeSpan, edgeRounds, edgeSeconds));
                    }
                }
                md.append(flood(admin, base, schema, threads, floodSeconds));
            } finally {
                exec(admin, "DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
            }
        }
        md.append("\nLoad average at the end: ").append(loadAverage()).append(".\n");
        return md.toString();
    }

    // ---- 1. load ------------------------------------------------------------------------------------

    private static String load(Connection admin, String schema, int population) throws Exception {
        String table = "\"" + schema + "\".sluice_api_keys";
        KeyHashing hashing = KeyHashing.sha256();
        long t0 = System.nanoTime();
        // hashing and key ids, on every core: the rows as COPY text
        int batch = 100_000;
        List<String> chunks = new ArrayList<>();
        for (int from = 0; from < population; from += batch) {
            int to = Math.min(population, from + batch);
            chunks.add(IntStream.range(from, to).parallel().mapToObj(i -> {
                String k = token(i);
                return hashing.hash(k) + "\t" + KeyIds.DEFAULT.id(k) + "\tbench\n";
            }).collect(StringBuilder::new, StringBuilder::append, StringBuilder::append).toString());
        }
        long t1 = System.nanoTime();
        admin.setAutoCommit(false);
        exec(admin, "ALTER TABLE " + table + " DISABLE TRIGGER sluice_api_keys_notify");
        var copy = admin.unwrap(PGConnection.class).getCopyAPI();
        long rows = 0;
        for (String chunk : chunks) {
            rows += copy.copyIn("COPY " + table + " (key_hash, key_id, plan) FROM STDIN", new StringReader(chunk));
        }
        exec(admin, "ALTER TABLE " + table + " ENABLE TRIGGER sluice_api_keys_notify");
        admin.commit();
        admin.setAutoCommit(true);
        long t2 = System.nanoTime();
        // as a table that has been in use is: hint bits set, visibility map and statistics current
        exec(admin, "VACUUM (ANALYZE) " + table);
        long t3 = System.nanoTime();
        String size;
        try (Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_size_pretty(pg_total_relation_size('" + table + "'))")) {
            rs.next();
            size = rs.getString(1);
        }
        System.err.printf("load: %,d rows in %.1f s (hashing %.1f s, COPY %.1f s, VACUUM ANALYZE %.1f s), %s%n", rows,
                (t3 - t0) / 1e9, (t1 - t0) / 1e9, (t2 - t1) / 1e9, (t3 - t2) / 1e9, size);
        return "### Load: " + String.format(Locale.ROOT, "%,d", rows) + " keys into PostgreSQL\n\n"
                + "| step | time (s) | rows/s |\n|---|---:|---:|\n"
                + row("hash (SHA-256, `KeyHashing`) and key ids, all cores", t1 - t0, rows)
                + row("`COPY` into `sluice_api_keys` (primary key and `key_id` index kept), one transaction", t2 - t1,
                        rows)
                + row("`VACUUM (ANALYZE)`", t3 - t2, rows)
                + row("**total**", t3 - t0, rows)
                + "\nTable with its indexes: " + size + ". The `NOTIFY` trigger is disabled for the import (an initial "
                + "load, no edge has anything to refresh) and enabled again in the same transaction.\n\n";
    }

    private static String row(String what, long nanos, long rows) {
        return String.format(Locale.ROOT, "| %s | %.2f | %s |%n", what, nanos / 1e9, Table.fmt(rows / (nanos / 1e9)));
    }

    // ---- 2. decisions/s at a 99 % hit rate ----------------------------------------------------------

    private record Throughput(String markdown) {}

    private static Throughput throughput(CachingKeySource source, CpuMeter cpu, int hot, int rounds, int decisions, int hitPercent,
            int threads, boolean profile) throws Exception {
        int coldPerRound = decisions / 100 * (100 - hitPercent);
        int streamRounds = rounds + 2;
        int coldNeeded = coldPerRound * streamRounds;
        int fileKeys = hot + coldNeeded;
        // the file lists every key any stream uses: the hot set and every round's cold keys
        StringBuilder yaml = new StringBuilder(fileKeys * 48);
        yaml.append("listen: 127.0.0.1:0\nupstream: { url: \"http://127.0.0.1:9\" }\n").append(PLANS);
        String storeYaml = yaml.toString();
        yaml.append("keys:\n");
        for (int i = 0; i < fileKeys; i++) {
            yaml.append("  ").append(token(i)).append(": bench\n");
        }
        long p0 = System.nanoTime();
        EdgeConfig fileConfig = EdgeConfig.parse("keys-file.yaml", yaml.toString());
        System.err.printf("key file: %,d keys, %,d bytes, read in %.1f s%n", fileKeys, yaml.length(),
                (System.nanoTime() - p0) / 1e9);
        EdgeConfig storeConfig = EdgeConfig.parse("keys-store.yaml", storeYaml);
        EdgeDecider file = decider(fileConfig, Optional.empty());
        EdgeDecider store = decider(storeConfig, Optional.of(source));

        RequestHead[] heads = new RequestHead[fileKeys];
        for (int i = 0; i < fileKeys; i++) {
            heads[i] = RequestHead.of("GET", ROUTE_PATH, "Bearer " + token(i), "127.0.0.1");
        }
        // the hot set in memory before the rounds, as a running edge would have it
        long w0 = System.nanoTime();
        Driver.Outcomes warm = Driver.run(store, heads, IntStream.range(0, hot).toArray(), threads);
        System.err.printf("hot set: %,d keys read into the cache in %.1f s (%s)%n", hot,
                (System.nanoTime() - w0) / 1e9, warm);

        Table rate = new Table("decisions/s", true);
        String storeLabel = "PostgreSQL keys, " + hitPercent + " % cache hits";
        String fileLabel = "key file";
        String storeAll = "PostgreSQL keys, 100 % cache hits";
        String fileAll = "key file, same stream";
        Driver.Outcomes storeOutcomes = new Driver.Outcomes();
        Driver.Outcomes fileOutcomes = new Driver.Outcomes();
        long lookups = 0;
        List<Double> ratios99 = new ArrayList<>();
        List<Double> ratios100 = new ArrayList<>();
        List<Double> cpuRatios99 = new ArrayList<>();
        List<Double> cpuRatios100 = new ArrayList<>();
        Table cpuRate = new Table("decisions per CPU second", true);
        for (int round = 0; round <= rounds; round++) {
            int[] stream = stream(hot, decisions, hitPercent, hot + round * coldPerRound, 17 + round);
            int[] hitsOnly = stream(hot, decisions, 100, 0, 31 + round);
            Driver.Outcomes f = measured(cpu, () -> Driver.run(file, heads, stream, threads));
            long qa = source.storeQueries();
            Driver.Outcomes s = measured(cpu, () -> Driver.run(store, heads, stream, threads));
            long qb = source.storeQueries();
            Driver.Outcomes fa = measured(cpu, () -> Driver.run(file, heads, hitsOnly, threads));
            Driver.Outcomes sa = measured(cpu, () -> Driver.run(store, heads, hitsOnly, threads));
            String tag = round == 0 ? "warm-up" : "round " + round + "/" + rounds;
            System.err.printf("%s: file %,.0f/s, store %,.0f/s (%.2f×; per CPU s %.2f×); all hits: file %,.0f/s, "
                    + "store %,.0f/s (%.2f×; per CPU s %.2f×) (load %s)%n", tag, f.perSecond(), s.perSecond(),
                    s.perSecond() / f.perSecond(), s.perCpuSecond() / f.perCpuSecond(), fa.perSecond(), sa.perSecond(),
                    sa.perSecond() / fa.perSecond(), sa.perCpuSecond() / fa.perCpuSecond(), loadAverage());
            if (round == 0) {
                continue;
            }
            cpuRate.add(fileLabel, f.perCpuSecond());
            cpuRate.add(storeLabel, s.perCpuSecond());
            cpuRate.add(fileAll, fa.perCpuSecond());
            cpuRate.add(storeAll, sa.perCpuSecond());
            cpuRatios99.add(s.perCpuSecond() / f.perCpuSecond());
            cpuRatios100.add(sa.perCpuSecond() / fa.perCpuSecond());
            ratios99.add(s.perSecond() / f.perSecond());
            ratios100.add(sa.perSecond() / fa.perSecond());
            rate.add(fileLabel, f.perSecond());
            rate.add(storeLabel, s.perSecond());
            rate.add(fileAll, fa.perSecond());
            rate.add(storeAll, sa.perSecond());
            fileOutcomes.add(f);
            lookups += qb - qa;
            storeOutcomes.add(s);
        }
        StringBuilder md = new StringBuilder();
        md.append("### Decisions/s at a ").append(hitPercent).append(" % cache hit rate: PostgreSQL keys against the key file\n\n")
                .append("Path: `ProtectedDecider.assemble(...).decider().decide(head)`, the edge's decision as `EdgeServer` "
                        + "builds it (escalation, idempotency, shedder stages; in-memory limiter store; rate-limit fields on), "
                        + "called by ").append(threads).append(" threads standing for the event loops, without Netty: "
                        + "the HTTP codec would add the same cost to both sides and hide the key store's. Each round "
                        + "is ").append(String.format(Locale.ROOT, "%,d", decisions)).append(" decisions; ")
                .append(hitPercent).append(" in 100 name one of ").append(String.format(Locale.ROOT, "%,d", hot))
                .append(" hot keys (uniform), 1 in 100 a key used nowhere before (in memory for the file, in "
                        + "PostgreSQL only for the store: a real lookup, ")
                .append(String.format(Locale.ROOT, "%,d", coldPerRound)).append(" per round). The file lists ")
                .append(String.format(Locale.ROOT, "%,d", fileKeys)).append(" keys: every key the streams use. "
                        + "The store's miss budget is lifted (`miss-lookups-per-second: 1000000`) so every miss is "
                        + "served, not refused; `pool-size: 4`. Rounds interleave file, store, file, store; one "
                        + "warm-up round is not counted.\n\n");
        double cpuRatio = cpuRate.ratio(storeLabel, fileLabel);
        double fileMicros = 1e6 / cpuRate.median(fileAll);
        double hitMicros = 1e6 / cpuRate.median(storeAll);
        double mixMicros = 1e6 / cpuRate.median(storeLabel);
        double fileMixMicros = 1e6 / cpuRate.median(fileLabel);
        // what the misses add beyond the hit path's own extra cost, spread over the decisions
        double missMicros = (mixMicros - fileMixMicros) - (hitMicros - fileMicros);
        double perLookup = missMicros * 100.0 / (100 - hitPercent);
        md.append("**Decisions per CPU second** (the verdict): each round's decisions divided by the CPU time of the "
                + "calling threads, the lookup threads and the store's PostgreSQL backends (`/proc/PID/schedstat`). "
                + "The decision is CPU-bound here, so this is decisions/s with the time slices that the other work on "
                + "this shared machine took left out: the steady figure of what the key store costs.\n\n");
        md.append(cpuRate.ratioHeader("key file"));
        md.append(cpuRate.ratioRow("decisions per CPU second, " + hitPercent + " % cache hits, PostgreSQL keys vs key file",
                storeLabel, fileLabel, 0.95));
        md.append(cpuRate.ratioRow("decisions per CPU second, 100 % cache hits, PostgreSQL keys vs key file", storeAll,
                fileAll, Double.NaN));
        md.append("\nThe same ratio within each round (store / file of the same round, seconds apart): ").append(hitPercent)
                .append(" % cache hits ").append(ratios(cpuRatios99)).append("; 100 % cache hits ")
                .append(ratios(cpuRatios100)).append(".\n");
        md.append(String.format(Locale.ROOT, "%nCPU per decision (medians): with 100 %% cache hits, key file %.2f µs, "
                + "PostgreSQL keys %.2f µs (%+.2f µs: hashing the token with SHA-256, the cache's map, a 64-character "
                + "limiter key); with %d %% cache hits, key file %.2f µs, PostgreSQL keys %.2f µs (%+.2f µs, of which "
                + "the misses %+.2f µs: one lookup every %d decisions, about %.0f µs of CPU each in the lookup thread, "
                + "the JDBC driver and the PostgreSQL backend).%n%n",
                fileMicros, hitMicros, hitMicros - fileMicros, hitPercent, fileMixMicros, mixMicros,
                mixMicros - fileMixMicros, missMicros, 100 / (100 - hitPercent), perLookup));
        md.append(cpuRate.rawMarkdown());
        md.append("\n**Decisions per wall-clock second**, the same rounds: no verdict, because on this shared machine the "
                + "same case swings by 2–5× from round to round with the other work (load average in the header).\n\n");
        md.append(rate.ratioHeader("key file"));
        md.append(rate.ratioRow("decisions/s, " + hitPercent + " % cache hits, PostgreSQL keys vs key file", storeLabel,
                fileLabel, Double.NaN));
        md.append(rate.ratioRow("decisions/s, 100 % cache hits, PostgreSQL keys vs key file", storeAll, fileAll,
                Double.NaN));
        md.append("\nWithin each round: ").append(hitPercent).append(" % cache hits ").append(ratios(ratios99))
                .append("; 100 % cache hits ").append(ratios(ratios100)).append(".\n");
        md.append("\n").append(rate.rawMarkdown()).append("\n");
        md.append("Outcomes over the counted rounds: key file ").append(fileOutcomes).append("; PostgreSQL keys ")
                .append(storeOutcomes).append(". Lookups the cache sent to PostgreSQL during the rounds: ")
                .append(String.format(Locale.ROOT, "%,d", lookups)).append(" (expected ")
                .append(String.format(Locale.ROOT, "%,d", coldPerRound * rounds)).append(": one per cold key), ")
                .append(Table.fmt(lookups / (storeOutcomes.nanos.sum() / 1e9)))
                .append(" a second while the store's ").append(hitPercent).append(" % rounds ran.\n\n");
        if (profile && cpuRatio < 0.95) {
            md.append(Profiles.profile(store, file, heads, hot, decisions, hitPercent,
                    hot + (rounds + 1) * coldPerRound, threads));
        }
        file.rules(); // both deciders stay reachable until here
        return new Throughput(md.toString());
    }

    private interface Run {
        Driver.Outcomes run() throws InterruptedException;
    }

    /** {@code run}, with the CPU time the lookups took outside the calling threads added to its outcomes. */
    private static Driver.Outcomes measured(CpuMeter cpu, Run run) throws InterruptedException {
        long c0 = cpu.lookupNanos();
        Driver.Outcomes out = run.run();
        out.cpuNanos.add(cpu.lookupNanos() - c0);
        return out;
    }

    /** The per-round ratios in run order and their median. */
    static String ratios(List<Double> r) {
        double[] a = r.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double median = a.length == 0 ? Double.NaN
                : a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
        StringBuilder sb = new StringBuilder();
        for (double x : r) {
            sb.append(sb.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.2f", x));
        }
        return sb + String.format(Locale.ROOT, " (median **%.2f×**)", median);
    }

    /**
     * A request stream of {@code decisions} indices into the heads: {@code hitPercent} in 100 a hot key
     * (uniform, seeded), the others the cold keys from {@code coldFrom} on, each once.
     */
    static int[] stream(int hot, int decisions, int hitPercent, int coldFrom, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] s = new int[decisions];
        int cold = coldFrom;
        int missEvery = hitPercent == 100 ? 0 : 100 / (100 - hitPercent);
        for (int i = 0; i < decisions; i++) {
            s[i] = missEvery > 0 && i % missEvery == missEvery - 1 ? cold++ : random.nextInt(hot);
        }
        return s;
    }

    static EdgeDecider decider(EdgeConfig config, Optional<KeySource> keys) {
        TimeSource time = TimeSource.system();
        return ProtectedDecider.assemble(config, new InMemoryLimiterStore(time), new InMemoryIdempotencyStore(time),
                time, 64, Duration.ofSeconds(40), List.of(), keys).decider();
    }

    // ---- 3. cold miss ---------------------------------------------------------------------------------

    private static String coldMiss(CachingKeySource source, int from, int samples) {
        EdgeConfig config = EdgeConfig.parse("keys-store.yaml",
                "listen: 127.0.0.1:0\nupstream: { url: \"http://127.0.0.1:9\" }\n" + PLANS);
        EdgeDecider store = decider(config, Optional.of(source));
        Histogram h = new Histogram(60_000_000_000L, 3);
        int discard = Math.min(200, samples / 10);
        Driver.Outcomes out = new Driver.Outcomes();
        long q0 = source.storeQueries();
        for (int i = 0; i < samples; i++) {
            RequestHead head = RequestHead.of("GET", ROUTE_PATH, "Bearer " + token(from + i), "127.0.0.1");
            long t0 = System.nanoTime();
            var verdict = store.decide(head).toCompletableFuture().join();
            long t = System.nanoTime() - t0;
            out.record(verdict);
            if (i >= discard) {
                h.recordValue(t);
            }
        }
        long lookups = source.storeQueries() - q0;
        System.err.printf("cold miss: p50 %.0f µs, p99 %.0f µs, p99.9 %.0f µs (%s)%n", h.getValueAtPercentile(50) / 1e3,
                h.getValueAtPercentile(99) / 1e3, h.getValueAtPercentile(99.9) / 1e3, out);
        return "### Cold miss: a decision on a key in PostgreSQL and not in memory\n\n"
                + "One request at a time, each with a key of the 1,000,000 never asked before: SHA-256, the cache miss, "
                + "the lookup on a pool thread (`SELECT … WHERE key_hash = ?` by primary key), the plan resolved, the "
                + "limiter's decision. " + String.format(Locale.ROOT, "%,d", h.getTotalCount()) + " samples (the first "
                + discard + " not counted); " + String.format(Locale.ROOT, "%,d", lookups) + " lookups sent; outcomes "
                + out + ".\n\n"
                + "| p50 (µs) | p99 (µs) | p99.9 (µs) | max (µs) | mean (µs) |\n|---:|---:|---:|---:|---:|\n"
                + "| " + Table.fmt(h.getValueAtPercentile(50) / 1e3) + " | " + Table.fmt(h.getValueAtPercentile(99) / 1e3)
                + " | " + Table.fmt(h.getValueAtPercentile(99.9) / 1e3) + " | " + Table.fmt(h.getMaxValue() / 1e3) + " | "
                + Table.fmt(h.getMean() / 1e3) + " |\n\n";
    }

    // ---- 4. flood -------------------------------------------------------------------------------------

    private static String flood(Connection admin, KeyStoreConfig base, String schema, int threads, int seconds)
            throws Exception {
        EdgeConfig config = EdgeConfig.parse("keys-store.yaml",
                "listen: 127.0.0.1:0\nupstream: { url: \"http://127.0.0.1:9\" }\n" + PLANS);
        StringBuilder md = new StringBuilder();
        md.append("### Flood of keys that do not exist\n\n")
                .append(threads).append(" threads send keys as fast as the decision answers them, for ").append(seconds)
                .append(" s per case, to a fresh store (empty caches). *Database lookups* is PostgreSQL's own count of "
                        + "scans of `sluice_api_keys` (`pg_stat_user_tables`: `idx_scan + seq_scan` of this schema's "
                        + "table only, read after the store's pool closed so every backend has flushed its counts; "
                        + "pg_stat_statements is not installed); *sent by the cache* is `CachingKeySource.storeQueries()`."
                        + " Default `key-store` settings: `miss-lookups-per-second: 200`, `unknown-cache-size: 100000`, "
                        + "`unknown-ttl: 30s`, `pool-size: 4`.\n\n")
                .append("| case | keys sent | keys/s answered | database lookups | database lookups/s | sent by the cache | "
                        + "failed (timeout) | 401 invalid_token | 503 key_store_unavailable | other | Retry-After |\n"
                        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        record Case(String name, KeyStoreConfig config, int distinct) {}
        List<Case> cases = List.of(
                new Case("random keys, default budget (200/s)", base, 0),
                new Case("random keys, budget lifted (1,000,000/s)", base.withMissLookupsPerSecond(1_000_000), 0),
                new Case("the same 1,000 unknown keys over and over, default budget", base, 1_000));
        double boundedPerSecond = Double.NaN;
        double liftedPerSecond = Double.NaN;
        for (Case c : cases) {
            long scans0 = tableScans(admin, schema);
            long sent;
            long queries;
            Driver.Outcomes out;
            long nanos;
            long failures;
            try (KeyStores store = KeyStores.open(c.config(), KeyIds.DEFAULT, TimeSource.system())) {
                SimpleMeterRegistry meters = new SimpleMeterRegistry();
                store.source().bindTo(meters);
                EdgeDecider decider = decider(config, Optional.of(store.source()));
                long q0 = store.source().storeQueries();
                long t0 = System.nanoTime();
                out = Driver.flood(decider, threads, Duration.ofSeconds(seconds), c.distinct());
                nanos = System.nanoTime() - t0;
                queries = store.source().storeQueries() - q0;
                failures = (long) meters.get("sluice_key_store_failures").functionCounter().count();
                sent = out.total();
            }
            Thread.sleep(1_500); // the pool's backends exit and flush their statistics
            long scans = tableScans(admin, schema) - scans0;
            double perSecond = scans / (nanos / 1e9);
            if (c.distinct() == 0 && c.config() == base) {
                boundedPerSecond = perSecond;
            } else if (c.distinct() == 0) {
                liftedPerSecond = perSecond;
            }
            System.err.printf("flood %s: %,d keys, %,d database lookups (%.0f/s), cache sent %,d (%,d failed), %s%n",
                    c.name(), sent, scans, perSecond, queries, failures, out);
            md.append("| ").append(c.name()).append(" | ").append(String.format(Locale.ROOT, "%,d", sent)).append(" | ")
                    .append(Table.fmt(sent / (nanos / 1e9))).append(" | ").append(String.format(Locale.ROOT, "%,d", scans))
                    .append(" | ").append(Table.fmt(perSecond)).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", queries)).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", failures)).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", out.status(401))).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", out.status(503))).append(" | ")
                    .append(String.format(Locale.ROOT, "%,d", out.total() - out.status(401) - out.status(503)))
                    .append(" | ").append(out.retryAfter()).append(" |\n");
        }
        // the budget admits 200 a second and saves at most one second's worth
        double bound = 200.0 * (seconds + 1) / seconds;
        md.append("\nWith the default budget the database sees at most 200 lookups a second (plus one second's worth "
                + "saved at the start: ≤ ").append(Table.fmt(bound)).append("/s over ").append(seconds)
                .append(" s) however fast the keys come; the keys over the budget get 503 `key_store_unavailable` "
                        + "with `Retry-After` at once, without a lookup, and the ones looked up get 401 "
                        + "`invalid_token` and are remembered. Without the budget the flood reaches the database at "
                        + "the rate the pool can query it (").append(Table.fmt(liftedPerSecond))
                .append("/s here). Repeated unknown keys are looked up once each and then answered from the "
                        + "negative cache.\n\n");
        md.append(Table.target("database lookups/s under a random-key flood, default budget", "≤ " + Table.fmt(bound) + "/s",
                Table.fmt(boundedPerSecond) + "/s", boundedPerSecond <= bound));
        return md.toString();
    }

    private static long tableScans(Connection admin, String schema) throws SQLException {
        try (Statement s = admin.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) FROM pg_stat_user_tables "
                        + "WHERE schemaname = '" + schema + "' AND relname = 'sluice_api_keys'")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    // ---- helpers --------------------------------------------------------------------------------------

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (Exception e) {
            return "n/a";
        }
    }
}
