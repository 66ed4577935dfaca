package dev.sluice.cli.deliver;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.DeliveryWorker;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.config.DeliveryFile;
import dev.sluice.config.Durations;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.jdbc.StoreLocation;
import dev.sluice.delivery.metrics.DeliveryCounters;
import dev.sluice.time.TimeSource;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
        description = {"Runs a worker: registers the config's destinations, then delivers, retries and dead-letters.",
            "Runs until Ctrl-C (it finishes the attempts in flight and puts back what it had claimed), until"
                    + " idle with --until-idle, or for --max-duration."})
final class RunCommand implements Callable<Integer> {

    /** How often --until-idle looks at the store: a run ends within this of going idle. */
    static final Duration IDLE_CHECK = Duration.ofMillis(200);

    @Mixin
    DeliverOptions options;

    @Option(names = "--until-idle",
            description = "Exit once nothing is in flight and nothing is due within --idle-horizon; later retries"
                    + " stay in the store for the next run.")
    boolean untilIdle;

    @Option(names = "--idle-horizon", paramLabel = "DURATION", defaultValue = "1m",
            description = "With --until-idle: how far ahead a scheduled retry still keeps the worker running"
                    + " (default ${DEFAULT-VALUE}).")
    String idleHorizon;

    @Option(names = "--max-duration", paramLabel = "DURATION",
            description = "Exit after this long, e.g. 10m (default: no limit).")
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
            Duration every = positive(Durations.parse(progress), "--progress");
            Duration limit = maxDuration == null ? null : positive(Durations.parse(maxDuration), "--max-duration");
            Duration horizon = Durations.parse(idleHorizon);
            if (horizon.isNegative()) {
                throw new IllegalArgumentException("--idle-horizon must not be negative: " + idleHorizon);
            }
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
                        StoreLocation.redact(options.location(file)), file.destinations().size(),
                        file.config().concurrency());
                err.flush();
                long start = time.nanoTime();
                Progress progress = new Progress(start, counters);
                long nextProgress = start + every.toNanos();
                long slice = untilIdle ? Math.min(every.toMillis(), IDLE_CHECK.toMillis()) : every.toMillis();
                DeliveryStatus status;
                String idleNote = null;
                while (true) {
                    boolean stopped = stop.await(Math.max(1, slice), TimeUnit.MILLISECONDS);
                    status = delivery.status();
                    long now = time.nanoTime();
                    boolean done = stopped || (limit != null && now - start >= limit.toNanos());
                    if (!done && untilIdle) {
                        idleNote = idle(status, horizon);
                        done = idleNote != null;
                    }
                    if (done) {
                        break;
                    }
                    if (now >= nextProgress) {
                        err.println(progress.line(now, status));
                        err.flush();
                        nextProgress = now + every.toNanos();
                    }
                }
                // the last line after the worker has finished what was in flight: the ledger can show an
                // attempt's outcome committed before the counters have heard of it
                worker.close();
                status = delivery.status();
                err.println(progress.line(time.nanoTime(), status));
                if (idleNote != null && !idleNote.isEmpty()) {
                    err.println("sluice deliver: idle; " + idleNote);
                }
                err.flush();
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

    private static Duration positive(Duration d, String option) {
        if (d.isZero() || d.isNegative()) {
            throw new IllegalArgumentException(option + " must be > 0: " + Durations.format(d.abs()));
        }
        return d;
    }

    /**
     * Whether the store is idle for {@code --until-idle}: nothing in flight, nothing pending due
     * within {@code horizon}. Returns {@code null} when not idle, an empty string when nothing is
     * pending at all, else a note on the retries left for a later run.
     */
    static String idle(DeliveryStatus s, Duration horizon) {
        if (s.count(LedgerState.IN_FLIGHT) > 0) {
            return null;
        }
        long pending = s.count(LedgerState.PENDING);
        if (pending == 0) {
            return "";
        }
        Instant next = s.nextEligibleAt();
        if (next == null || !next.isAfter(s.at().plus(horizon))) {
            return null;
        }
        return String.format(Locale.ROOT, "%d %s due later than --idle-horizon %s (next at %s, in %s) left in"
                        + " the store; run again then, or without --until-idle", pending,
                pending == 1 ? "retry" : "retries", Durations.format(horizon), next.truncatedTo(ChronoUnit.SECONDS),
                human(Duration.between(s.at(), next)));
    }

    /** {@code 45s}, {@code 9m57s}, {@code 3h05m}, {@code 2d04h}. */
    static String human(Duration d) {
        long s = Math.max(0, d.toSeconds());
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3600, s % 3600 / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, s % 86_400 / 3600);
    }

    /** The progress lines of one run: each counts what was delivered since the one before. */
    private static final class Progress {
        private final long startNanos;
        private final DeliveryCounters counters;
        private long lastDelivered;
        private long lastNanos;

        Progress(long startNanos, DeliveryCounters counters) {
            this.startNanos = startNanos;
            this.counters = counters;
            this.lastNanos = startNanos;
        }

        String line(long nowNanos, DeliveryStatus status) {
            long delivered = counters.delivered();
            double rate = (delivered - lastDelivered) / Math.max(1e-9, (nowNanos - lastNanos) / 1e9);
            String line = progressLine(Duration.ofNanos(nowNanos - startNanos), counters, status,
                    delivered - lastDelivered, rate);
            lastDelivered = delivered;
            lastNanos = nowNanos;
            return line;
        }
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
