package dev.sluice.delivery.crash;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The worker process of {@link CrashTest}: runs one worker on a SQLite store until it is killed.
 * Arguments: {@code DB_PATH CONCURRENCY REQUEST_TIMEOUT_MS LEASE_MS}.
 */
public final class CrashWorkerMain {

    private CrashWorkerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        String db = args[0];
        DeliveryConfig config = DeliveryConfig.builder()
                .concurrency(Integer.parseInt(args[1]))
                .requestTimeout(Duration.ofMillis(Long.parseLong(args[2])))
                .lease(Duration.ofMillis(Long.parseLong(args[3])))
                .pollInterval(Duration.ofMillis(200))
                .build();
        JdbcDeliveryStore store = JdbcDeliveryStore.open("sqlite:" + db);
        Delivery delivery = Delivery.builder(store).config(config).build();
        delivery.newWorker().start();
        System.out.println("worker " + ProcessHandle.current().pid() + " started");
        new CountDownLatch(1).await(); // until SIGKILL
    }
}
