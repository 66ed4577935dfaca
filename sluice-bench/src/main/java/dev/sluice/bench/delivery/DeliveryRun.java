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
 * with its own store and pool, as separate processes would have; default concurrency 8 each). The
 * events are enqueued in one transaction first; the clock runs from the workers' start to the last
 * delivery. Configurations alternate within each round.
 */
public final class DeliveryRun {

    static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

    private DeliveryRun() {}

    public static String run(Args args) throws Exception {
        int rounds = args.integer("rounds", 5);
        int events = args.integer("events", 2_000);
        String pg = args.text("postgresql", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        Table rate = new Table("events/s", true);
        boolean pgUp = reachable(pg);
        try (ImmediateServer receiver = new ImmediateServer(4)) {
            for (int round = 1; round <= rounds; round++) {
                for (String kind : pgUp ? List.of("sqlite", "postgresql") : List.of("sqlite")) {
                    for (int workers : new int[] {1, 3}) {
                        double r = once(kind, workers, events, pg, receiver, round);
                        rate.add(kind + ", " + workers + " worker" + (workers > 1 ? "s" : ""), r);
                        System.err.printf("round %d/%d %s x%d: %.0f events/s%n", round, rounds, kind, workers, r);
                    }
                }
            }
        }
        StringBuilder md = new StringBuilder();
        md.append("### Events delivered per second (median of ").append(rounds).append(" interleaved rounds, ")
                .append(String.format("%,d", events)).append(" events each)\n\n");
        md.append("| store | 1 worker | 3 workers | 3 workers / 1 worker |\n|---|---:|---:|---:|\n");
        for (String kind : pgUp ? List.of("sqlite", "postgresql") : List.of("sqlite")) {
            double one = rate.median(kind + ", 1 worker");
            double three = rate.median(kind + ", 3 workers");
            md.append("| ").append(kind).append(" | ").append(Table.fmt(one)).append(" | ").append(Table.fmt(three))
                    .append(" | ").append(String.format(java.util.Locale.ROOT, "%.2f×", three / one)).append(" |\n");
        }
        if (!pgUp) {
            md.append("\nPostgreSQL was not reachable at ").append(pg).append(": not measured.\n");
        }
        md.append("\n### Raw numbers\n\n").append(rate.rawMarkdown());
        return md.toString();
    }

    private static boolean reachable(String url) {
        try (Connection c = DriverManager.getConnection(url)) {
            return c.isValid(2);
        } catch (Exception e) {
            System.err.println("postgresql not reachable: " + e.getMessage());
            return false;
        }
    }

    private static double once(String kind, int workers, int events, String pg, ImmediateServer receiver, int round)
            throws Exception {
        Path tmp = Files.createTempDirectory("sluice-bench-delivery");
        String schema = "sluice_bench_" + ProcessHandle.current().pid() + "_" + round + "_" + workers;
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
                JdbcDeliveryStore.Options o = JdbcDeliveryStore.Options.defaults();
                JdbcDeliveryStore s = kind.equals("sqlite")
                        ? JdbcDeliveryStore.open("sqlite:" + sqliteFile, o)
                        : JdbcDeliveryStore.open(pg, o.withSchema(schema));
                stores.add(s);
                deliveries.add(Delivery.builder(s).listener(count).config(DeliveryConfig.builder().build()).build());
            }
            Delivery first = deliveries.get(0);
            first.registerDestination(new Destination("partner", receiver.uri("/hooks"),
                    new Rate(1_000_000, 100_000), SECRET, true));
            String url = kind.equals("sqlite") ? "jdbc:sqlite:" + sqliteFile : pg;
            try (Connection c = DriverManager.getConnection(url)) {
                if (!kind.equals("sqlite")) {
                    try (Statement st = c.createStatement()) {
                        st.execute("SET search_path TO " + schema);
                    }
                }
                c.setAutoCommit(false);
                for (int i = 0; i < events; i++) {
                    first.enqueue(c, NewEvent.of("partner", "order.paid", "{\"n\":" + i + "}")
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
            if (!kind.equals("sqlite")) {
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
