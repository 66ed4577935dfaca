package dev.sluice.delivery.bench;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.DeliveryWorker;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.NewEvent;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import dev.sluice.delivery.support.Fixtures;
import dev.sluice.delivery.support.TestReceiver;
import dev.sluice.time.TimeSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A bounded throughput run (not a test, not a benchmark harness): N events to a local receiver
 * that answers 200 at once, delivered by W worker replicas (each with its own pool, as processes
 * would have), reporting deliveries per second. Run from the module with the test class path:
 *
 * <pre>
 * java -cp target/test-classes:target/classes:$(cat target/cp.txt) dev.sluice.delivery.bench.DeliveryThroughputMain \
 *     sqlite|sqlite-normal|postgresql WORKERS EVENTS [CONCURRENCY]
 * </pre>
 */
public final class DeliveryThroughputMain {

    private DeliveryThroughputMain() {
    }

    public static void main(String[] args) throws Exception {
        String kind = args[0];
        int workers = Integer.parseInt(args[1]);
        int events = Integer.parseInt(args[2]);
        int concurrency = args.length > 3 ? Integer.parseInt(args[3]) : 16;
        TimeSource time = TimeSource.system();
        Path tmp = Files.createTempDirectory("sluice-throughput");
        String schema = "sluice_bench_" + ProcessHandle.current().pid();
        String pg = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

        List<JdbcDeliveryStore> stores = new ArrayList<>();
        List<Delivery> deliveries = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(events);
        DeliveryListener count = new DeliveryListener() {
            @Override
            public void onDelivered(String destination, String idempotencyKey, int attempts) {
                done.countDown();
            }
        };
        try (TestReceiver receiver = TestReceiver.immediate()) {
            for (int i = 0; i < workers; i++) {
                JdbcDeliveryStore.Options o = JdbcDeliveryStore.Options.defaults().withPoolSize(concurrency + 3);
                JdbcDeliveryStore s = switch (kind) {
                    case "sqlite" -> JdbcDeliveryStore.open("sqlite:" + tmp.resolve("b.db"), o);
                    case "sqlite-normal" -> JdbcDeliveryStore.open("sqlite:" + tmp.resolve("b.db"),
                            o.withSqliteSynchronous("NORMAL"));
                    case "postgresql" -> JdbcDeliveryStore.open(pg, o.withSchema(schema));
                    default -> throw new IllegalArgumentException(kind);
                };
                stores.add(s);
                deliveries.add(Delivery.builder(s).listener(count)
                        .config(DeliveryConfig.builder().concurrency(concurrency).build()).build());
            }
            Delivery first = deliveries.get(0);
            first.registerDestination(new Destination("partner", receiver.url("/hooks"), new Rate(1_000_000, 100_000),
                    Fixtures.SECRET, true));
            String url = kind.startsWith("sqlite") ? "jdbc:sqlite:" + tmp.resolve("b.db") : pg;
            try (Connection c = DriverManager.getConnection(url)) {
                c.setAutoCommit(false);
                for (int i = 0; i < events; i++) {
                    first.enqueue(c, NewEvent.of("partner", "t", "{\"n\":" + i + "}").withIdempotencyKey("k" + i));
                }
                c.commit();
            }
            long start = time.nanoTime();
            List<DeliveryWorker> ws = deliveries.stream().map(d -> d.newWorker().start()).toList();
            if (!done.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("not done: " + done.getCount() + " left");
            }
            Duration took = Duration.ofNanos(time.nanoTime() - start);
            ws.forEach(DeliveryWorker::close);
            System.out.printf(Locale.ROOT, "%s workers=%d concurrency=%d events=%d: %.2f s, %.0f deliveries/s,"
                            + " receiver saw %d requests%n", kind, workers, concurrency, events,
                    took.toNanos() / 1e9, events / (took.toNanos() / 1e9), receiver.requests());
        } finally {
            deliveries.forEach(Delivery::close);
            stores.forEach(JdbcDeliveryStore::close);
            if (kind.equals("postgresql")) {
                try (Connection c = DriverManager.getConnection(pg); Statement s = c.createStatement()) {
                    s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            }
        }
    }
}
