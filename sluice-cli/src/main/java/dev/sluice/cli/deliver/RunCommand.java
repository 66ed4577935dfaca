package dev.sluice.cli.deliver;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.DeliveryWorker;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.config.DeliveryFile;
import dev.sluice.delivery.config.Durations;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.metrics.DeliveryCounters;
import dev.sluice.time.TimeSource;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice deliver run}: one worker, with a progress line, until interrupted or idle. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Registers the config's destinations and runs a worker until Ctrl-C (then it finishes the",
            "attempts in flight and puts back what it had claimed), or until idle with --until-idle."})
final class RunCommand implements Callable<Integer> {

    @Mixin
    DeliverOptions options;

    @Option(names = "--until-idle", description = "Exit when nothing is pending or in flight.")
    boolean untilIdle;

    @Option(names = "--max-duration", paramLabel = "DURATION", description = "Exit after this long (e.g. 10m).")
    String maxDuration;

    @Option(names = "--progress", paramLabel = "DURATION", defaultValue = "5s",
            description = "How often to print a progress line to stderr (default ${DEFAULT-VALUE}).")
    String progress;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        return Guard.run(err, () -> {
            Duration every = Durations.parse(progress);
            Duration limit = maxDuration == null ? null : Durations.parse(maxDuration);
            DeliveryFile file = options.load();
            DeliveryCounters counters = new DeliveryCounters();
            TimeSource time = TimeSource.system();
            CountDownLatch stop = new CountDownLatch(1);
            try (JdbcDeliveryStore store = options.open(file);
                    Delivery delivery = DeliverOptions.delivery(file, store, counters)) {
                for (Destination d : file.destinations()) {
                    delivery.registerDestination(d);
                }
                DeliveryWorker worker = delivery.newWorker().start();
                Thread hook = new Thread(() -> {
                    stop.countDown();
                    worker.close(); // finish what is in flight, put back the rest
                }, "sluice-deliver-shutdown");
                Runtime.getRuntime().addShutdownHook(hook);
                err.printf("sluice deliver: worker %s on %s, %d destination(s), concurrency %d%n", worker.id(),
                        file.store().replaceAll("(?i)(password=)[^&]*", "$1***"), file.destinations().size(),
                        file.config().concurrency());
                err.flush();
                long start = time.nanoTime();
                long lastDelivered = 0;
                long lastNanos = start;
                DeliveryStatus status;
                while (true) {
                    boolean stopped = stop.await(every.toMillis(), TimeUnit.MILLISECONDS);
                    status = delivery.status();
                    long now = time.nanoTime();
                    long delivered = counters.delivered();
                    double rate = (delivered - lastDelivered) / Math.max(1e-9, (now - lastNanos) / 1e9);
                    err.println(progressLine(Duration.ofNanos(now - start), counters, status, delivered - lastDelivered,
                            rate));
                    err.flush();
                    lastDelivered = delivered;
                    lastNanos = now;
                    if (stopped) {
                        break;
                    }
                    if (untilIdle && status.count(LedgerState.PENDING) + status.count(LedgerState.IN_FLIGHT) == 0) {
                        break;
                    }
                    if (limit != null && Duration.ofNanos(now - start).compareTo(limit) >= 0) {
                        break;
                    }
                }
                worker.close();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // Ctrl-C: the hook is running already
                }
                Duration took = Duration.ofNanos(time.nanoTime() - start);
                out.printf(Locale.ROOT, "delivered %d in %.1f s (%.1f/s); attempts %d; dead-lettered %d; in review %d;"
                                + " still pending %d%n", counters.delivered(), took.toMillis() / 1000.0,
                        counters.delivered() / Math.max(1e-9, took.toNanos() / 1e9), counters.attempts(),
                        counters.deadLetters(), status.count(LedgerState.REVIEW), status.count(LedgerState.PENDING));
                return 0;
            }
        });
    }

    static String progressLine(Duration elapsed, DeliveryCounters c, DeliveryStatus s, long deltaDelivered,
            double rate) {
        return String.format(Locale.ROOT,
                "[%5ds] delivered %d (+%d, %.1f/s) · retries %d · no-token %d · suppressed %d · dead %d · review %d"
                        + " · pending %d (due %d) · in flight %d",
                elapsed.toSeconds(), c.delivered(), deltaDelivered, rate, c.scheduled() - c.tokensDenied(),
                c.tokensDenied(), c.suppressed(), c.deadLetters(), s.count(LedgerState.REVIEW),
                s.count(LedgerState.PENDING), s.dueNow(), s.count(LedgerState.IN_FLIGHT));
    }
}
