package dev.sluice.examples.demo;

import dev.sluice.examples.demo.fleet.CallTransport;
import dev.sluice.examples.demo.fleet.CarefulRetryTransport;
import dev.sluice.examples.demo.fleet.ClientKind;
import dev.sluice.examples.demo.fleet.Fleet;
import dev.sluice.examples.demo.fleet.NaiveRetryTransport;
import dev.sluice.examples.demo.fleet.OperationMix;
import dev.sluice.examples.demo.fleet.SdkTransport;
import dev.sluice.examples.demo.fleet.SourceAddresses;
import dev.sluice.examples.demo.fleet.Tenancy;
import dev.sluice.examples.demo.report.ComparisonReport;
import dev.sluice.examples.demo.report.ComparisonTable;
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
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One run of {@code sluice demo}: the same fleet, edge and blip once per client compared
 * ({@link DemoSettings#kinds()}: the naive retry loop, the careful retry, the Sluice SDK), one after
 * the other, each on a fresh Shiplane and a fresh edge so that no client inherits another's quota,
 * idempotency records or escalations. Each run prints its live table; at the end the comparison of
 * the headline figures is printed and the HTML report written.
 *
 * <p>{@link #run()} blocks until the runs are over. {@link #requestStop()} (a Ctrl-C shutdown hook)
 * ends them early: the fleet stops, the edge and Shiplane close, and the report of what ran is still
 * written; {@link #awaitFinished(Duration)} lets the hook wait for that. Time must be the system
 * clock: the fleet and this loop park real threads.
 */
public final class DemoRun {

    /**
     * A row is printed once its second has ended and every attempt sent in it is answered, but no
     * sooner than this after its end and no later than {@link #ROW_MAX_WAIT_NANOS}.
     */
    static final long ROW_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    static final long ROW_MAX_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(2_500);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Duration FLEET_STOP_GRACE = Duration.ofSeconds(1);
    /** Seconds recorded past the run: the fleet's stop takes its grace plus at most about 6 s more. */
    private static final int STOP_SLACK_SECONDS = 15;
    /** During the blip, this share of Shiplane's answers is slow instead of a 503 (an overloaded API stalls too). */
    static final double BLIP_SLOW_SHARE = 0.3;
    /** How long a slow answer of the blip takes: past every client's attempt timeout ({@link Fleet#ATTEMPT_TIMEOUT}). */
    static final Duration BLIP_SLOW_LATENCY = Duration.ofSeconds(6);

    /** How long the throwaway warm-up run lasts. */
    static final Duration WARM_UP = Duration.ofSeconds(8);

    private final DemoSettings settings;
    private final DemoEdge.Starter edges;
    private final TimeSource time;
    private final PrintWriter out;
    private final boolean terminal;
    private final Optional<Path> edgeLog;
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile boolean stopRequested;
    /** When Shiplane recovered after the blip of the current run, nanos since its start; -1 before. */
    private volatile long recoveredAtNanos = -1;
    /** Requests past the edge's limits in each whole second after the blip of the current run, until it recovered. */
    private final List<Long> afterBlip = new java.util.concurrent.CopyOnWriteArrayList<>();
    private boolean ran;

    /**
     * @param settings what to run
     * @param edges starts the edge in front of Shiplane
     * @param time the system clock (see the class comment)
     * @param out where the table and messages go
     * @param terminal whether {@code out} is an interactive terminal (progress line)
     * @param edgeLog the file the edge's log goes to, named in the setup block, if the caller sent it to one
     */
    public DemoRun(DemoSettings settings, DemoEdge.Starter edges, TimeSource time, PrintWriter out, boolean terminal,
            Optional<Path> edgeLog) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.edges = Objects.requireNonNull(edges, "edges");
        this.time = Objects.requireNonNull(time, "time");
        this.out = Objects.requireNonNull(out, "out");
        this.terminal = terminal;
        this.edgeLog = Objects.requireNonNull(edgeLog, "edgeLog");
    }

    /** A run whose edge log is wherever the logging configuration sends it. */
    public DemoRun(DemoSettings settings, DemoEdge.Starter edges, TimeSource time, PrintWriter out, boolean terminal) {
        this(settings, edges, time, out, terminal, Optional.empty());
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
     * @return the runs' numbers and the report written
     * @throws IllegalStateException if this instance already ran
     * @throws IllegalArgumentException if the configuration lacks the plans the demo needs
     * @throws IOException if Shiplane or the edge cannot listen, or the report cannot be written
     * @throws dev.sluice.config.ConfigException if the edge configuration is invalid
     */
    public synchronized DemoResult run() throws IOException {
        if (ran) {
            throw new IllegalStateException("a DemoRun runs once");
        }
        ran = true;
        try {
            return runAll();
        } finally {
            finished.countDown();
        }
    }

    private DemoResult runAll() throws IOException {
        List<Tenancy> groups = DemoFleetShape.groups(settings.clients(), settings.callsPerSecondPerClient());
        SourceAddresses addresses = SourceAddresses.distinctWhereAvailable();
        LiveTable text = new LiveTable(out, terminal, false);
        List<String> setup = setup(groups, addresses);
        setup.forEach(text::line);
        text.line(String.format(Locale.ROOT, "warming up: the fleet for %d s, uncounted (a first run on a cold JVM would"
                + " time out where the later ones do not) ...", WARM_UP.toSeconds()));
        warmUp(groups, addresses);
        Instant startedAt = time.now();
        List<RunReport> runs = new ArrayList<>();
        int n = 0;
        for (ClientKind kind : settings.kinds()) {
            if (stopRequested) {
                break;
            }
            n++;
            runs.add(runOne(kind, n, groups, addresses));
        }
        ComparisonReport report = new ComparisonReport(startedAt, setup, runs, BLIP_SLOW_SHARE, BLIP_SLOW_LATENCY);
        Path file = settings.report().toAbsolutePath();
        HtmlReport.write(report, file);
        text.line("");
        if (runs.size() < settings.kinds().size() || runs.stream().anyMatch(RunReport::interrupted)) {
            text.line("stopped early: " + runs.size() + " of " + settings.kinds().size() + " clients ran");
        }
        ComparisonTable.lines(report).forEach(text::line);
        text.line("");
        text.line("report: " + file);
        return new DemoResult(report, file);
    }

    private RunReport runOne(ClientKind kind, int n, List<Tenancy> groups, SourceAddresses addresses)
            throws IOException {
        ShiplaneConfig upstreamConfig = ShiplaneConfig.defaults().withPort(0)
                .withRandom(new SplittableRandom(settings.seed())).withSlowBlip(BLIP_SLOW_SHARE, BLIP_SLOW_LATENCY);
        recoveredAtNanos = -1;
        afterBlip.clear();
        try (ShiplaneServer shiplane = ShiplaneServer.start(upstreamConfig);
                DemoEdge edge = edges.start(settings, shiplane.baseUri(), groups)) {
            SeriesRecorder recorder = new SeriesRecorder(time, settings.durationSeconds() + STOP_SLACK_SECONDS);
            try (CallTransport.Factory transports = transports(kind, edge.baseUri());
                    Fleet fleet = new Fleet(edge.baseUri(), Tenancy.clients(groups), OperationMix.shiplane(), transports,
                            recorder, time, rampUp(), settings.seed(), addresses)) {
                LiveTable table = new LiveTable(out, terminal, kind == ClientKind.SDK);
                table.line("");
                table.line(String.format(Locale.ROOT, "[%d/%d] %s: %s", n, settings.kinds().size(), kind.label(),
                        kind.description()));
                table.line("      edge " + edge.baseUri() + ", Shiplane " + shiplane.baseUri());
                fleet.prepare(Duration.ofSeconds(10));
                table.header();

                Instant startedAt = time.now();
                recorder.start();
                fleet.start();
                RecoveryRule recovery = new RecoveryRule(recoveryCapacity(edge.limitPerSecond()), RECOVERY_SECONDS);
                long ranNanos = timeline(recorder, fleet, shiplane, table, kind, recovery);
                fleet.stop(FLEET_STOP_GRACE);
                shiplane.blip(false);

                int secondsRun = (int) Math.min(settings.durationSeconds(), (ranNanos + 999_999_999L) / 1_000_000_000L);
                List<SecondCounts> seconds = recorder.seconds(secondsRun);
                for (int s = table.rowsPrinted(); s < secondsRun; s++) {
                    table.row(seconds.get(s), note(s));
                }
                SecondCounts afterRun = recorder.sum(secondsRun, recorder.capacitySeconds());
                Optional<SecondCounts> stopping = Arrays.stream(afterRun.values()).anyMatch(v -> v > 0)
                        ? Optional.of(afterRun) : Optional.empty();
                stopping.ifPresent(table::stoppingRow);
                boolean interrupted = ranNanos < settings.durationSeconds() * 1_000_000_000L;
                long escalated = edge.escalated();
                List<String> notes = new ArrayList<>();
                notes.add(recoveryNote(recovery, ranNanos));
                String summary = edge.summary();
                if (!summary.isEmpty()) {
                    notes.add(summary);
                }
                notes.add(escalated > 0
                        ? String.format(Locale.ROOT, "edge:   answered %,d requests itself as a retry loop's (SPEC 3.12:"
                                + " early retries of one key and address get a doubled Retry-After, then a block):"
                                + " that is the edge protecting Shiplane from this client", escalated)
                        : "edge:   escalated no client as a retry loop (SPEC 3.12)");
                notes.forEach(table::line);
                return new RunReport(kind, startedAt, settings.durationSeconds(), interrupted, blipWindow(secondsRun),
                        seconds, stopping, fleet.totals(), shiplane.stats(), edge.limitPerSecond(), escalated, notes);
            }
        }
    }

    /**
     * Runs the fleet for {@link #WARM_UP} through a throwaway Shiplane and edge, no blip, its clients
     * taking the compared clients in turn, and counts nothing of it: the first measured run on a cold
     * JVM (the JIT has not compiled the edge's, the JDK client's or the SDK's paths; the heap is
     * small) times out where the later ones do not, and the comparison must not measure that.
     */
    private void warmUp(List<Tenancy> groups, SourceAddresses addresses) throws IOException {
        ShiplaneConfig upstreamConfig = ShiplaneConfig.defaults().withPort(0).withRandom(new SplittableRandom(settings.seed()));
        try (ShiplaneServer shiplane = ShiplaneServer.start(upstreamConfig);
                DemoEdge edge = edges.start(settings, shiplane.baseUri(), groups)) {
            SeriesRecorder ignored = new SeriesRecorder(time, 1);
            List<CallTransport.Factory> factories = new ArrayList<>();
            for (ClientKind kind : settings.kinds()) {
                factories.add(transports(kind, edge.baseUri()));
            }
            CallTransport.Factory mixed = new CallTransport.Factory() {
                @Override
                public CallTransport create(dev.sluice.examples.demo.fleet.ClientSpec spec, java.net.http.HttpClient http,
                        java.util.random.RandomGenerator random) {
                    return factories.get(spec.id() % factories.size()).create(spec, http, random);
                }

                @Override
                public ClientKind kind() {
                    return factories.get(0).kind();
                }

                @Override
                public void close() {
                    factories.forEach(CallTransport.Factory::close);
                }
            };
            try (Fleet fleet = new Fleet(edge.baseUri(), Tenancy.clients(groups), OperationMix.shiplane(), mixed, ignored,
                    time, rampUp(), settings.seed() + 1, addresses)) {
                fleet.prepare(Duration.ofSeconds(10));
                fleet.start();
                long until = time.nanoTime() + WARM_UP.toNanos();
                while (time.nanoTime() - until < 0 && !stopRequested) {
                    LockSupport.parkNanos(TICK_NANOS);
                }
                fleet.stop(Duration.ZERO);
            }
        }
    }

    /** Drives the blip and prints rows until the run's end or a stop request; returns the nanos run. */
    private long timeline(SeriesRecorder recorder, Fleet fleet, ShiplaneServer shiplane, LiveTable table,
            ClientKind kind, RecoveryRule recovery) {
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
                    blipEnded = true;
                    afterBlip.clear();
                }
            }
            if (blipEnded && settings.hasBlip() && recoveredAtNanos < 0) {
                // each whole second after the blip, once its attempts' 429s are in (they come at once)
                int next = settings.blipAtSeconds() + settings.blipForSeconds() + afterBlip.size();
                if (recovery.recovered()
                        || (elapsed >= (next + 1) * 1_000_000_000L + ROW_GRACE_NANOS && next < settings.durationSeconds()
                        && recovery.second(record(recorder.second(next))))) {
                    shiplane.blip(false);
                    recoveredAtNanos = elapsed;
                }
            }
            while (table.rowsPrinted() < settings.durationSeconds()) {
                int next = table.rowsPrinted();
                long sinceEnd = elapsed - (next + 1) * 1_000_000_000L;
                SecondCounts row = recorder.second(next);
                if (sinceEnd < ROW_GRACE_NANOS || (row.unanswered() > 0 && sinceEnd < ROW_MAX_WAIT_NANOS)) {
                    break;
                }
                table.row(row, note(next));
            }
            if (elapsed >= duration || stopRequested) {
                return Math.min(elapsed, duration);
            }
            table.progress(progress(elapsed, duration, fleet, shiplane, kind));
            LockSupport.parkNanos(TICK_NANOS);
        }
    }

    /** Two seconds, or a quarter of a shorter run. */
    private Duration rampUp() {
        return Duration.ofMillis(Math.min(2_000, settings.durationSeconds() * 250L));
    }

    private CallTransport.Factory transports(ClientKind kind, java.net.URI edge) {
        return switch (kind) {
            case NAIVE -> NaiveRetryTransport.factory();
            case CAREFUL -> CarefulRetryTransport.factory();
            case SDK -> SdkTransport.factory(edge, time);
        };
    }

    private String note(int second) {
        if (!settings.hasBlip()) {
            return "";
        }
        int end = settings.blipAtSeconds() + settings.blipForSeconds();
        boolean in = second + 1 > settings.blipAtSeconds() && second < end;
        if (in) {
            return "<- blip (Shiplane answers 503 or stalls)";
        }
        long recovered = recoveredAtNanos;
        boolean down = second >= end && (recovered < 0 || second * 1_000_000_000L < recovered);
        return down ? "<- Shiplane still overloaded" : "";
    }

    /** Requests of {@code second} that got past the edge's limits (sent, and not answered 429), kept for the note. */
    private long record(SecondCounts second) {
        long past = second.get(Series.OFFERED) - second.get(Series.RATE_LIMITED) - second.get(Series.QUOTA_EXHAUSTED);
        afterBlip.add(past);
        return past;
    }

    /** What Shiplane did after the blip: when it recovered, and the load past the edge's limits until then. */
    private String recoveryNote(RecoveryRule recovery, long ranNanos) {
        if (!settings.hasBlip()) {
            return "shiplane: no blip";
        }
        int end = settings.blipAtSeconds() + settings.blipForSeconds();
        String load = String.format(Locale.ROOT, "; requests past the edge's limits each second from the blip's end: %s"
                + " (it recovers after %d s in a row at <= %,.0f/s)", afterBlip, recovery.seconds(),
                recovery.capacityPerSecond());
        long recovered = recoveredAtNanos;
        return recovered >= 0
                ? String.format(Locale.ROOT, "shiplane: overloaded from %d s to %.1f s (the %d s blip, then %.1f s more)%s",
                        settings.blipAtSeconds(), recovered / 1e9, settings.blipForSeconds(), recovered / 1e9 - end, load)
                : String.format(Locale.ROOT, "shiplane: overloaded from %d s to the end of the run (the %d s blip, then"
                        + " %.1f s more)%s", settings.blipAtSeconds(), settings.blipForSeconds(),
                        Math.min(ranNanos, settings.durationSeconds() * 1e9) / 1e9 - end, load);
    }

    /** Whole seconds in a row the load past the edge's limits must stay within Shiplane's recovery capacity. */
    static final int RECOVERY_SECONDS = 2;

    /**
     * Shiplane's capacity while it recovers, requests/s: the setting, or by default the fleet's limit
     * ({@code limitPerSecond}, the units/s the edge sells) taken as requests — a backend provisioned for
     * what it sells, and not for a storm of retries on top of it; infinite when the limit is unknown.
     */
    private double recoveryCapacity(double limitPerSecond) {
        double set = settings.recoveryCapacityPerSecond();
        return set > 0 ? set : limitPerSecond > 0 ? limitPerSecond : Double.POSITIVE_INFINITY;
    }

    private Optional<RunReport.Blip> blipWindow(int secondsRun) {
        if (!settings.hasBlip() || settings.blipAtSeconds() >= secondsRun) {
            return Optional.empty();
        }
        return Optional.of(new RunReport.Blip(settings.blipAtSeconds(),
                Math.min(secondsRun, settings.blipAtSeconds() + settings.blipForSeconds())));
    }

    private String progress(long elapsedNanos, long durationNanos, Fleet fleet, ShiplaneServer shiplane,
            ClientKind kind) {
        double elapsed = elapsedNanos / 1e9;
        String blip;
        if (!settings.hasBlip()) {
            blip = "no blip";
        } else if (shiplane.blipping()) {
            blip = "BLIP: Shiplane answers 503 or stalls";
        } else if (elapsed < settings.blipAtSeconds()) {
            blip = String.format(Locale.ROOT, "blip in %.0f s", Math.ceil(settings.blipAtSeconds() - elapsed));
        } else {
            blip = "blip over";
        }
        return String.format(Locale.ROOT, "%s %s %2.0f/%d s  %s  calls %,d  in progress %d  (Ctrl-C stops and writes the report)",
                kind.label(), LiveTable.bar(elapsedNanos, durationNanos, 30), Math.floor(elapsed),
                settings.durationSeconds(), blip, fleet.totals().calls(), fleet.callsInProgress());
    }

    private List<String> setup(List<Tenancy> groups, SourceAddresses addresses) {
        List<String> lines = new ArrayList<>();
        StringBuilder kinds = new StringBuilder();
        for (ClientKind k : settings.kinds()) {
            kinds.append(kinds.isEmpty() ? "" : ", ").append(k.label());
        }
        lines.add("sluice demo: Shiplane behind the Sluice edge, " + settings.clients() + " clients for "
                + settings.durationSeconds() + " s, once per client: " + kinds);
        lines.add("  edge      config " + settings.config() + " + the demo's keys (a fresh edge for each client)");
        String blip = settings.hasBlip()
                ? String.format(Locale.ROOT, "; blip from %d s to %d s: %.0f %% of answers 503 (Retry-After 1),"
                        + " %.0f %% stall %d s (the label is bought; every client's attempt timeout is %d s); after"
                        + " it Shiplane stays overloaded (answers the same) until, %d s in a row, the requests past the"
                        + " edge's limits stay at or under its recovery capacity, the fleet's limit taken as requests/s",
                        settings.blipAtSeconds(), settings.blipAtSeconds() + settings.blipForSeconds(),
                        100 * (1 - BLIP_SLOW_SHARE), 100 * BLIP_SLOW_SHARE, BLIP_SLOW_LATENCY.toSeconds(),
                        Fleet.ATTEMPT_TIMEOUT.toSeconds(), RECOVERY_SECONDS)
                : "; no blip";
        ShiplaneConfig shiplane = ShiplaneConfig.defaults();
        lines.add(String.format(Locale.ROOT, "  upstream  Shiplane, answers in %d ms +/- %d ms%s",
                shiplane.latency().toMillis(), shiplane.latencyJitter().toMillis(), blip));
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
        fleet.append(String.format(Locale.ROOT, "; %s calls/s each at Poisson arrivals, whether or not earlier calls are"
                + " still retrying (%d %% label buys, %d %% quotes, %d %% batches of 10); first calls over a %d ms ramp",
                trim(settings.callsPerSecondPerClient()), mix.buyLabelPercent(), mix.quotePercent(), mix.batchPercent(),
                rampUp().toMillis()));
        lines.add(fleet.toString());
        lines.add("  sources   " + addresses.describe(settings.clients()));
        edgeLog.ifPresent(log -> lines.add("  edge log  " + log.toAbsolutePath() + " (nothing the edge logs goes into the table)"));
        return lines;
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
