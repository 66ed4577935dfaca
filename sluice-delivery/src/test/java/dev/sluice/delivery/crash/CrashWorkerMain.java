package dev.sluice.delivery.crash;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.delivery.spi.WebhookTransport;
import dev.sluice.delivery.webhook.JdkWebhookTransport;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * The worker process of {@link CrashTest}: runs one worker on a SQLite store until it is killed.
 * Arguments: {@code DB_PATH CONCURRENCY REQUEST_TIMEOUT_MS LEASE_MS}.
 */
public final class CrashWorkerMain {

    /** A log line's tag: an attempt of this key ended without an answer (timeout, reset, refused). */
    static final String MISSED = "missed-answer";

    /** A log line's tag: a completion of this key was refused because its lease had lapsed. */
    static final String LEASE_LOST = "lease-lost";

    private CrashWorkerMain() {
    }

    /** One line {@code TAG KEY EPOCH_MILLIS} on standard output (the test's worker log). */
    private static void report(String tag, String key) {
        System.out.println(tag + " " + key + " " + System.currentTimeMillis());
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
        // The worker's own account of an answer it never recorded: an attempt with no answer in time
        // (the receiver may have sent its 2xx while this JVM was starved) and a completion refused
        // because the lease had lapsed. CrashTest explains a repeat after a 2xx by these lines.
        JdkWebhookTransport jdk = new JdkWebhookTransport(config.requestTimeout(), TimeSource.system());
        WebhookTransport transport = (request, timeout) -> {
            TransportResult result = jdk.send(request, timeout);
            if (result instanceof TransportResult.Failed) {
                request.headers().first("Idempotency-Key")
                        .ifPresent(key -> report(MISSED, key));
            }
            return result;
        };
        DeliveryListener listener = new DeliveryListener() {
            @Override
            public void onLeaseLost(String destination, String idempotencyKey) {
                report(LEASE_LOST, idempotencyKey);
            }
        };
        Delivery delivery = Delivery.builder(store).config(config).transport(transport).listener(listener).build();
        delivery.newWorker().start();
        System.out.println("worker " + ProcessHandle.current().pid() + " started");
        new CountDownLatch(1).await(); // until SIGKILL
    }
}
