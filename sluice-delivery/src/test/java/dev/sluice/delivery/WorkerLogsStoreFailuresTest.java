package dev.sluice.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import dev.sluice.delivery.support.CapturingLogger;
import dev.sluice.time.ManualTimeSource;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A worker whose store fails is not silent: a WARN with the stack trace, rate-limited, listener or not. */
class WorkerLogsStoreFailuresTest {

    @TempDir
    Path dir;

    @Test
    @Timeout(20)
    void aWorkerOnAStoreThatFailsLogsOneWarnWithTheCauseAndKeepsTrying() throws Exception {
        ManualTimeSource time = ManualTimeSource.at("2026-12-01T00:00:00Z");
        CapturingLogger logger = new CapturingLogger();
        AtomicInteger errors = new AtomicInteger();
        JdbcDeliveryStore store = JdbcDeliveryStore.open("sqlite:" + dir.resolve("d.db"));
        try (Delivery delivery = Delivery.builder(store).time(time).logger(logger)
                .config(DeliveryConfig.builder().pollInterval(Duration.ofMillis(20)).alignClockWithStore(false).build())
                .listener(new DeliveryListener() {
                    @Override
                    public void onError(Throwable error) {
                        errors.incrementAndGet();
                    }
                })
                .build()) {
            store.close(); // the database is gone: every claim fails
            DeliveryWorker worker = delivery.newWorker().start();

            assertThat(logger.awaitFirst(10)).isTrue();
            // the worker retries every poll interval (20 ms)
            await("five failed claims").atMost(Duration.ofSeconds(10)).until(() -> errors.get() >= 5);
            worker.close();
        }

        // the clock never moved: one line for every failure in the 30 s window
        assertThat(logger.lines()).hasSize(1).first().satisfies(l -> {
            assertThat(l.level()).isEqualTo(Level.WARNING);
            // the claim or the queue-depth reading, whichever ran first
            assertThat(l.message()).matches("sluice delivery: worker w-\\S+: (claiming|reading the queue depth)"
                    + " failed: .*has been closed.*; the worker keeps trying");
            assertThat(l.thrown()).isInstanceOf(StoreException.class);
        });
    }
}
