package dev.sluice.bench.delivery;

import dev.sluice.bench.Args;
import dev.sluice.bench.ImmediateServer;
import dev.sluice.bench.Table;
import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.DeliveryWorker;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.NewEvent;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import dev.sluice.delivery.webhook.JdkWebhookTransport;
import dev.sluice.time.TimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Events delivered per second by {@link DeliveryWorker}s against a loopback receiver answering
 * {@code 200} at once: SQLite (a fresh file in a temporary folder) and PostgreSQL (database
 * {@code test}, a schema of its own, dropped afterwards), 1 and 3 workers (each a {@link Delivery}
 * with its own store and pool, as separate processes would have; default concurrency 8 each), to
 * 1 and to 100 destinations; beside db-scheduler doing the same work on the same PostgreSQL
 * ({@link DbSchedulerPeer}, 8 threads per worker). The events are enqueued (scheduled) first; the
 * clock runs from the workers' start to the last delivery. Configurations alternate within each
 * round.
 */
public final class DeliveryRun {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    static final int CONCURRENCY = 8;
    /** SQLite with {@code synchronous=NORMAL} (WAL): survives a process crash, not a power loss. */
    static final String SQLITE_NORMAL = "sqlite normal";

    private DeliveryRun() {}

    public static String run(Args args) throws Exception {
        int rounds = args.integer("rounds", 3);
        int events = args.integer("events", 3_000);
        String pg = args.text("postgresql", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Table rate = new Table("events/s", true);
        boolean pgUp = reachable(pg);
        List<String> kinds = pgUp ? List.of("sqlite", SQLITE_NORMAL, "postgresql", "db-scheduler", "http alone")
                : List.of("sqlite", SQLITE_NORMAL, "http alone");
        String only = args.text("only", ""); // one store, for profiling: the tables then show only it
        if (!only.isEmpty()) {
            kinds = kinds.stream().filter(only::equals).toList();
        }
        int[] fanOuts = args.text("destinations", "").isEmpty() ? new int[] {1, 100}
                : new int[] {args.integer("destinations", 1)};
        try (ImmediateServer receiver = new ImmediateServer(4)) {
            for (int round = 1; round <= rounds; round++) {
                for (int dests : fanOuts) {
                    List<Destination> destinations = new ArrayList<>();
                    for (int i = 0; i < dests; i++) {
                        destinations.add(new Destination("partner-" + i, receiver.uri("/hooks/" + i),
                                new Rate(1_000_000, 100_000), SECRET, true));
                    }
                    for (String kind : kinds) {
                        for (int workers : new int[] {1, 3}) {
                            double r = kind.equals("http alone") ? httpAlone(workers, events, destinations, round)
                                    : kind.equals("db-scheduler")
                                    ? DbSchedulerPeer.run(pg, "sluice_bench_dbs_" + ProcessHandle.current().pid()
                                            + "_" + round + "_" + workers + "_" + dests, workers, CONCURRENCY,
                                            destinations, events, round)
                                    : once(kind, workers, events, pg, destinations, round);
                            rate.add(label(kind, workers, dests), r);
                            System.err.printf("round %d/%d %s x%d, %d destination(s): %.0f events/s (load %s)%n",
                                    round, rounds, kind, workers, dests, r, loadAverage());
                        }
                    }
                }
            }
        }
        StringBuilder md = new StringBuilder();
        md.append("### Events delivered per second (median of ").append(rounds).append(" interleaved rounds, ")
                .append(String.format("%,d", events)).append(" events each; load average at the end ")
                .append(loadAverage()).append(")\n\n");
        md.append("| store | destinations | 1 worker | 3 workers | 3 workers / 1 worker |\n|---|---:|---:|---:|---:|\n");
        for (String kind : kinds) {
            for (int dests : fanOuts) {
                double one = rate.median(label(kind, 1, dests));
                double three = rate.median(label(kind, 3, dests));
                md.append("| ").append(kind).append(" | ").append(dests).append(" | ").append(Table.fmt(one))
                        .append(" | ").append(Table.fmt(three)).append(" | ")
                        .append(String.format(java.util.Locale.ROOT, "%.2f×", three / one)).append(" |\n");
            }
        }
        if (pgUp) {
            md.append("\n### Against db-scheduler on the same PostgreSQL\n\n").append(rate.ratioHeader("db-scheduler"));
            for (int dests : fanOuts) {
                for (int workers : new int[] {1, 3}) {
                    md.append(rate.ratioRow("PostgreSQL, " + workers + " worker" + (workers > 1 ? "s" : "") + ", "
                            + dests + " destination" + (dests > 1 ? "s" : ""), label("postgresql", workers, dests),
                            label("db-scheduler", workers, dests), workers == 3 ? 1.0 : Double.NaN));
                }
            }
        } else {
            md.append("\nPostgreSQL was not reachable at ").append(pg).append(": not measured.\n");
        }
        if (kinds.contains("sqlite") && kinds.contains(SQLITE_NORMAL)) {
            md.append("\n### SQLite: synchronous=NORMAL against FULL (same rounds)\n\n")
                    .append("| destinations | workers | FULL (default) | NORMAL | NORMAL/FULL |\n|---:|---:|---:|---:|---:|\n");
            for (int dests : fanOuts) {
                for (int workers : new int[] {1, 3}) {
                    double full = rate.median(label("sqlite", workers, dests));
                    double normal = rate.median(label(SQLITE_NORMAL, workers, dests));
                    md.append("| ").append(dests).append(" | ").append(workers).append(" | ").append(Table.fmt(full))
                            .append(" | ").append(Table.fmt(normal)).append(" | ")
                            .append(String.format(java.util.Locale.ROOT, "%.2f×", normal / full)).append(" |\n");
                }
            }
        }
        md.append("\n### Against the absolute targets\n\n| case | events/s | target | verdict |\n|---|---:|---:|---|\n");
        for (int dests : fanOuts) {
            absolute(md, rate, "sqlite", dests, 2_000);
            if (pgUp) {
                absolute(md, rate, "postgresql", dests, 5_000);
            }
        }
        md.append("\n### Raw numbers\n\n").append(rate.rawMarkdown());
        return md.toString();
    }

    private static void absolute(StringBuilder md, Table rate, String kind, int dests, double target) {
        double v = rate.median(label(kind, 3, dests));
        String what = kind + ", 3 workers, " + dests + " destination" + (dests > 1 ? "s" : "");
        md.append("| ").append(what).append(" | ").append(Table.fmt(v)).append(" | ≥ ").append(Table.fmt(target))
                .append(" | ").append(v >= target ? "met" : "missed").append(" |\n");
        md.append(Table.target("delivery " + what + " (events/s)", "≥ " + Table.fmt(target), Table.fmt(v), v >= target));
    }

    private static String label(String kind, int workers, int dests) {
        return kind + ", " + workers + " worker" + (workers > 1 ? "s" : "") + ", " + dests + " dest";
    }

    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "n/a";
        }
    }

    private static boolean reachable(String url) {
        try (Connection c = DriverManager.getConnection(url)) {
            return c.isValid(2);
        } catch (Exception e) {
            System.err.println("postgresql not reachable: " + e.getMessage());
            return false;
        }
    }

    /**
     * The harness's ceiling: the same signed requests sent by {@code workers × CONCURRENCY} threads
     * through one {@link JdkWebhookTransport} per worker to the same receiver, with no store at all.
     */
    private static double httpAlone(int workers, int events, List<Destination> destinations, int round)
            throws Exception {
        List<JdkWebhookTransport> transports = new ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(
                workers * CONCURRENCY);
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        try {
            for (int w = 0; w < workers; w++) {
                transports.add(new JdkWebhookTransport(SignedSend.TIMEOUT, TimeSource.system()));
            }
            List<java.util.concurrent.Future<?>> futures = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < workers * CONCURRENCY; t++) {
                JdkWebhookTransport transport = transports.get(t % workers);
                futures.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < events; i = next.getAndIncrement()) {
                        SignedSend.send(transport, TimeSource.system(), destinations.get(i % destinations.size()),
                                "evt_" + round + "_" + i, "bench-" + round + "-" + i, "{\"n\":" + i + "}");
                    }
                    return null;
                }));
            }
            for (var f : futures) {
                f.get();
            }
            return events / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdownNow();
            transports.forEach(JdkWebhookTransport::close);
        }
    }

    private static double once(String kind, int workers, int events, String pg, List<Destination> destinations,
            int round) throws Exception {
        Path tmp = Files.createTempDirectory("sluice-bench-delivery");
        String schema = "sluice_bench_" + ProcessHandle.current().pid() + "_" + round + "_" + workers + "_"
                + destinations.size();
        List<JdbcDeliveryStore> stores = new ArrayList<>();
        List<Delivery> deliveries = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(events);
        DeliveryListener count = new DeliveryListener() {
            @Override
            public void onDelivered(String destination, String idempotencyKey, int attempts) {
                done.countDown();
            }
        };
        String sqliteFile = tmp.resolve("bench.db").toString();
        try {
            for (int i = 0; i < workers; i++) {
                JdbcDeliveryStore.Options o = JdbcDeliveryStore.Options.defaults().withPoolSize(CONCURRENCY + 4);
                JdbcDeliveryStore s = kind.equals("sqlite") ? JdbcDeliveryStore.open("sqlite:" + sqliteFile, o)
                        : kind.equals(SQLITE_NORMAL)
                        ? JdbcDeliveryStore.open("sqlite:" + sqliteFile, o.withSqliteSurvivingProcessCrashOnly())
                        : JdbcDeliveryStore.open(pg, o.withSchema(schema));
                stores.add(s);
                deliveries.add(Delivery.builder(s).listener(count)
                        .config(DeliveryConfig.builder().concurrency(CONCURRENCY).build()).build());
            }
            Delivery first = deliveries.get(0);
            destinations.forEach(first::registerDestination);
            boolean sqlite = kind.startsWith("sqlite");
            String url = sqlite ? "jdbc:sqlite:" + sqliteFile : pg;
            try (Connection c = DriverManager.getConnection(url)) {
                if (!sqlite) {
                    try (Statement st = c.createStatement()) {
                        st.execute("SET search_path TO " + schema);
                    }
                }
                c.setAutoCommit(false);
                for (int i = 0; i < events; i++) {
                    first.enqueue(c, NewEvent.of(destinations.get(i % destinations.size()).name(), "order.paid",
                                    "{\"n\":" + i + "}")
                            .withIdempotencyKey("bench-" + round + "-" + i));
                }
                c.commit();
            }
            long start = System.nanoTime();
            List<DeliveryWorker> ws = deliveries.stream().map(d -> d.newWorker().start()).toList();
            if (!done.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException(kind + ": " + done.getCount() + " events not delivered in 5 minutes");
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            ws.forEach(DeliveryWorker::close);
            return events / seconds;
        } finally {
            deliveries.forEach(Delivery::close);
            stores.forEach(JdbcDeliveryStore::close);
            if (!kind.startsWith("sqlite")) {
                try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            }
            try (Stream<Path> files = Files.walk(tmp)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
