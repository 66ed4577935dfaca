package dev.sluice.examples.demo;

import dev.sluice.examples.demo.fleet.CallResult;
import dev.sluice.examples.demo.fleet.CallTotals;
import dev.sluice.examples.demo.fleet.CallTransport;
import dev.sluice.examples.demo.fleet.Fleet;
import dev.sluice.examples.demo.fleet.OperationMix;
import dev.sluice.examples.demo.fleet.PlainRetryTransport;
import dev.sluice.examples.demo.fleet.SdkTransport;
import dev.sluice.examples.demo.fleet.Tenancy;
import dev.sluice.examples.demo.report.HtmlReport;
import dev.sluice.examples.demo.report.LiveTable;
import dev.sluice.examples.demo.report.RunReport;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.demo.series.SeriesRecorder;
import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of {@code sluice demo}: Shiplane on a free port, the edge in front of it with the demo's
 * configuration, and a fleet of virtual clients calling through the edge over loopback HTTP for the
 * run's duration, with Shiplane blipping (answering 503) in the middle. Prints the live table while
 * it runs, then writes the HTML report and prints its path.
 *
 * <p>{@link #run()} blocks until the run is over. {@link #requestStop()} (a Ctrl-C shutdown hook)
 * ends it early: the fleet stops, the edge and Shiplane close, and the report of what ran is still
 * written; {@link #awaitFinished(Duration)} lets the hook wait for that. Time must be the system
 * clock: the fleet and this loop park real threads.
 */
public final class DemoRun {

    /**
     * A row is printed once its second has ended and every attempt sent in it is answered, but no
     * sooner than this after its end and no later than {@link #ROW_MAX_WAIT_NANOS}.
     */
    static final long ROW_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long ROW_MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1_000);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Duration FLEET_STOP_GRACE = Duration.ofSeconds(1);
    /** Seconds recorded past the run: the fleet's stop takes at most its grace plus two seconds. */
    private static final int STOP_SLACK_SECONDS = 4;

    private final DemoSettings settings;
    private final DemoEdge.Starter edges;
    private final TimeSource time;
    private final PrintWriter out;
    private final boolean terminal;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopRequested;
    private int printedRows; // rows of the live table printed so far (the run's thread only)

    /**
     * @param settings what to run
     * @param edges starts the edge in front of Shiplane
     * @param time the system clock (see the class comment)
     * @param out where the table and messages go
     * @param terminal whether {@code out} is an interactive terminal (progress line)
     */
    public DemoRun(DemoSettings settings, DemoEdge.Starter edges, TimeSource time, PrintWriter out, boolean terminal) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.edges = Objects.requireNonNull(edges, "edges");
        this.time = Objects.requireNonNull(time, "time");
        this.out = Objects.requireNonNull(out, "out");
        this.terminal = terminal;
    }

    /** Asks a running demo to stop now and write its report; returns at once. */
    public void requestStop() {
        stopRequested = true;
    }

    /** Waits up to {@code timeout} for {@link #run()} to be over; true if it is. */
    public boolean awaitFinished(Duration timeout) throws InterruptedException {
        return finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Runs the demo.
     *
     * @return the run's numbers and the report written
     * @throws IllegalStateException if this instance already ran
     * @throws IllegalArgumentException if the configuration lacks the plans the demo needs
     * @throws IOException if Shiplane or the edge cannot listen, or the report cannot be written
     * @throws dev.sluice.config.ConfigException if the edge configuration is invalid
     */
    public DemoResult run() throws IOException {
        if (finished.getCount() == 0 || printedRows > 0) {
            throw new IllegalStateException("a DemoRun runs once");
        }
        try {
            return runFleet();
        } finally {
            finished.countDown();
        }
    }

    private DemoResult runFleet() throws IOException {
        List<Tenancy> groups = DemoFleetShape.groups(settings.clients(), settings.callsPerSecondPerClient());
        ShiplaneConfig upstreamConfig = ShiplaneConfig.defaults().withPort(0).withRandom(new SplittableRandom(settings.seed()));
        try (ShiplaneServer shiplane = ShiplaneServer.start(upstreamConfig);
                DemoEdge edge = edges.start(settings, shiplane.baseUri(), groups)) {
            SeriesRecorder recorder = new SeriesRecorder(time, settings.durationSeconds() + STOP_SLACK_SECONDS);
            try (CallTransport.Factory transports = transports(edge.baseUri(), recorder);
                    Fleet fleet = new Fleet(edge.baseUri(), Tenancy.clients(groups), OperationMix.shiplane(), transports,
                            recorder, time, rampUp(), settings.seed())) {
                LiveTable table = new LiveTable(out, terminal, transports.isSdk());
                List<String> setup = setup(edge, shiplane, groups, transports);
                setup.forEach(line -> table.line(line));
                table.line("");
                table.header();

                Instant startedAt = time.now();
                recorder.start();
                fleet.start();
                long ranNanos = timeline(recorder, fleet, shiplane, table);
                fleet.stop(FLEET_STOP_GRACE);
                shiplane.blip(false);
                String edgeSummary = edge.summary();
                if (!edgeSummary.isEmpty()) {
                    setup.add(edgeSummary);
                }

                int secondsRun = (int) Math.min(settings.durationSeconds(), (ranNanos + 999_999_999L) / 1_000_000_000L);
                List<SecondCounts> seconds = recorder.seconds(secondsRun);
                for (int s = printedRows; s < secondsRun; s++) {
                    table.row(seconds.get(s), note(s));
                }
                SecondCounts afterRun = recorder.sum(secondsRun, recorder.capacitySeconds());
                Optional<SecondCounts> stopping = java.util.Arrays.stream(afterRun.values()).anyMatch(v -> v > 0)
                        ? Optional.of(afterRun) : Optional.empty();
                stopping.ifPresent(table::stoppingRow);
                boolean interrupted = ranNanos < settings.durationSeconds() * 1_000_000_000L;
                RunReport report = new RunReport(startedAt, settings.durationSeconds(), interrupted, setup,
                        transports.isSdk(), blipWindow(secondsRun), seconds, stopping, fleet.totals(), shiplane.stats());
                Path file = settings.report().toAbsolutePath();
                HtmlReport.write(report, file);
                summary(table, report, file, interrupted, edgeSummary);
                return new DemoResult(report, file);
            }
        }
    }

    /** Drives the blip and prints rows until the run's end or a stop request; returns the nanos run. */
    private long timeline(SeriesRecorder recorder, Fleet fleet, ShiplaneServer shiplane, LiveTable table) {
        long start = recorder.startNanos();
        long duration = settings.durationSeconds() * 1_000_000_000L;
        long blipFrom = settings.blipAtSeconds() * 1_000_000_000L;
        long blipTo = blipFrom + settings.blipForSeconds() * 1_000_000_000L;
        boolean blipStarted = false;
        boolean blipEnded = !settings.hasBlip();
        while (true) {
            long elapsed = time.nanoTime() - start;
            if (!blipEnded) {
                if (!blipStarted && elapsed >= blipFrom) {
                    shiplane.blip(true);
                    blipStarted = true;
                }
                if (blipStarted && elapsed >= blipTo) {
                    shiplane.blip(false);
                    blipEnded = true;
                }
            }
            while (printedRows < settings.durationSeconds()) {
                long sinceEnd = elapsed - (printedRows + 1) * 1_000_000_000L;
                SecondCounts row = recorder.second(printedRows);
                if (sinceEnd < ROW_GRACE_NANOS || (row.unanswered() > 0 && sinceEnd < ROW_MAX_WAIT_NANOS)) {
                    break;
                }
                table.row(row, note(printedRows));
                printedRows++;
            }
            if (elapsed >= duration || stopRequested) {
                return Math.min(elapsed, duration);
            }
            table.progress(progress(elapsed, duration, fleet, shiplane));
            LockSupport.parkNanos(TICK_NANOS);
        }
    }

    /** Two seconds, or a quarter of a shorter run. */
    private Duration rampUp() {
        return Duration.ofMillis(Math.min(2_000, settings.durationSeconds() * 250L));
    }

    private CallTransport.Factory transports(java.net.URI edge, SeriesRecorder recorder) {
        return switch (settings.client()) {
            case PLAIN -> PlainRetryTransport.factory(recorder);
            case SDK -> SdkTransport.factory(edge, recorder, time);
        };
    }

    private String note(int second) {
        if (!settings.hasBlip()) {
            return "";
        }
        boolean in = second + 1 > settings.blipAtSeconds() && second < settings.blipAtSeconds() + settings.blipForSeconds();
        return in ? "<- blip (Shiplane answers 503)" : "";
    }

    private Optional<RunReport.Blip> blipWindow(int secondsRun) {
        if (!settings.hasBlip() || settings.blipAtSeconds() >= secondsRun) {
            return Optional.empty();
        }
        return Optional.of(new RunReport.Blip(settings.blipAtSeconds(),
                Math.min(secondsRun, settings.blipAtSeconds() + settings.blipForSeconds())));
    }

    private String progress(long elapsedNanos, long durationNanos, Fleet fleet, ShiplaneServer shiplane) {
        double elapsed = elapsedNanos / 1e9;
        String blip;
        if (!settings.hasBlip()) {
            blip = "no blip";
        } else if (shiplane.blipping()) {
            blip = "BLIP: Shiplane answers 503";
        } else if (elapsed < settings.blipAtSeconds()) {
            blip = String.format(Locale.ROOT, "blip in %.0f s", Math.ceil(settings.blipAtSeconds() - elapsed));
        } else {
            blip = "blip over";
        }
        return String.format(Locale.ROOT, "%s %2.0f/%d s  %s  calls %,d  in flight %d  (Ctrl-C stops and writes the report)",
                LiveTable.bar(elapsedNanos, durationNanos, 30), Math.floor(elapsed), settings.durationSeconds(), blip,
                fleet.totals().calls(), fleet.inFlight());
    }

    private List<String> setup(DemoEdge edge, ShiplaneServer shiplane, List<Tenancy> groups,
            CallTransport.Factory transports) {
        List<String> lines = new ArrayList<>();
        lines.add("sluice demo: Shiplane behind the Sluice edge, " + settings.clients() + " clients for "
                + settings.durationSeconds() + " s");
        lines.add("  edge      " + edge.baseUri() + "  " + edge.description());
        String blip = settings.hasBlip()
                ? "; blip (503) from " + settings.blipAtSeconds() + " s to " + (settings.blipAtSeconds()
                        + settings.blipForSeconds()) + " s"
                : "; no blip";
        lines.add(String.format(Locale.ROOT, "  upstream  Shiplane %s, answers in %d ms +/- %d ms%s", shiplane.baseUri(),
                shiplane.config().latency().toMillis(), shiplane.config().latencyJitter().toMillis(), blip));
        StringBuilder fleet = new StringBuilder("  fleet     ");
        String sep = "";
        for (Tenancy t : groups) {
            if (t.clients() == 0) {
                continue;
            }
            fleet.append(sep).append(t.clients()).append(' ').append(t.plan()).append(" on ").append(t.keys().size())
                    .append(t.keys().size() == 1 ? " key" : " keys");
            sep = ", ";
        }
        OperationMix mix = OperationMix.shiplane();
        fleet.append(String.format(Locale.ROOT, "; %s calls/s each (%d %% label buys, %d %% quotes, %d %% batches of 10)",
                trim(settings.callsPerSecondPerClient()), mix.buyLabelPercent(), mix.quotePercent(), mix.batchPercent()));
        lines.add(fleet.toString());
        lines.add("  client    " + transports.description());
        return lines;
    }

    private void summary(LiveTable table, RunReport report, Path file, boolean interrupted, String edgeSummary) {
        Map<Series, Long> t = report.totals();
        long offered = t.get(Series.OFFERED);
        table.line("");
        if (interrupted) {
            table.line("stopped early after " + report.seconds().size() + " s");
        }
        StringBuilder totals = new StringBuilder(String.format(Locale.ROOT,
                "totals: offered %,d, admitted %,d (%s), 429 rate_limited %,d, 429 quota_exhausted %,d, 503 %,d, retries %,d (%s of offered)",
                offered, t.get(Series.ADMITTED), pct(t.get(Series.ADMITTED), offered), t.get(Series.RATE_LIMITED),
                t.get(Series.QUOTA_EXHAUSTED), t.get(Series.UNAVAILABLE), t.get(Series.RETRIES),
                pct(t.get(Series.RETRIES), offered)));
        if (report.sdk()) {
            totals.append(String.format(Locale.ROOT, ", local drops %,d, budget exhaustions %,d",
                    t.get(Series.LOCAL_DROPS), t.get(Series.BUDGET_EXHAUSTED)));
        }
        table.line(totals.toString());
        CallTotals calls = report.calls();
        StringBuilder ended = new StringBuilder(String.format(Locale.ROOT, "calls:  %,d made, %,d succeeded (%s)",
                calls.calls(), calls.get(CallResult.Kind.SUCCEEDED),
                pct(calls.get(CallResult.Kind.SUCCEEDED), calls.calls())));
        for (CallResult.Kind k : CallResult.Kind.values()) {
            if (k != CallResult.Kind.SUCCEEDED && calls.get(k) > 0) {
                ended.append(String.format(Locale.ROOT, ", %,d %s", calls.get(k), k.describe()));
            }
        }
        table.line(ended.toString());
        if (!edgeSummary.isEmpty()) {
            table.line(edgeSummary);
        }
        table.line(String.format(Locale.ROOT, "Shiplane created %,d labels; %,d of them bought twice under one Idempotency-Key",
                report.upstream().labelsCreated(), report.upstream().duplicateLabels()));
        table.line("report: " + file);
    }

    private static String pct(long part, long whole) {
        return whole == 0 ? "0 %" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
