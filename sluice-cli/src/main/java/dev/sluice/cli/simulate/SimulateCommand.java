package dev.sluice.cli.simulate;

import dev.sluice.cli.CliError;
import dev.sluice.config.ConfigException;
import dev.sluice.sim.Simulation;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.report.ReportFiles;
import dev.sluice.sim.report.SeriesWriter;
import dev.sluice.sim.report.TerminalTable;
import dev.sluice.sim.scenario.BuiltInScenarios;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioReader;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code sluice simulate}: runs a scenario (a built-in name or a YAML file) in the discrete-event
 * simulator and prints a per-second table, or JSON lines with {@code --json}; {@code --out DIR}
 * also writes {@code series.csv}, {@code chart.svg} and {@code report.html}. Stdout carries only the
 * result; the progress line of a long run goes to stderr. The same seed prints the same bytes.
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        description = {
            "Simulate a client fleet (the real SDK core) against an edge (the real limiter), deterministically.",
            "Built-in scenarios: jitter-blip, retry-amplification, adaptive-throttle, littles-law."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:simulated", "2:unknown scenario, invalid scenario file (file, line and field are named),"
            + " or a run larger than --max-calls"})
public final class SimulateCommand implements Callable<Integer> {

    /** Client-seconds above which a run prints a progress line ({@code --progress auto}). */
    static final long LONG_RUN_CLIENT_SECONDS = 200_000;

    /** When to draw the progress line on stderr. */
    enum ProgressMode { auto, always, never }

    @Spec
    CommandSpec spec;

    @Option(names = "--scenario", required = true, paramLabel = "NAME|FILE",
            description = "A built-in scenario name or a scenario YAML file.")
    String scenario;

    @Option(names = "--seed", paramLabel = "S", description = "Seed (default: the scenario's own).")
    Long seed;

    @Option(names = "--json", description = "Print the series as JSON lines instead of a table.")
    boolean json;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write series.csv, chart.svg and report.html here.")
    Path out;

    @Option(names = "--summary", description = "Print headline figures only, without per-second rows.")
    boolean summary;

    @Option(names = "--max-calls", paramLabel = "N", defaultValue = "10000000",
            description = "Refuse a run estimated to open more calls than this, summed over the variants"
                    + " (default ${DEFAULT-VALUE}: about 3 min of wall time at 20 µs a call).")
    long maxCalls;

    @Option(names = "--progress", paramLabel = "WHEN", defaultValue = "auto",
            description = "Progress line on stderr (wall time elapsed and left): ${COMPLETION-CANDIDATES}"
                    + " (default ${DEFAULT-VALUE}: runs of 200,000 client-seconds or more). Never on stdout.")
    ProgressMode progressMode;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Scenario s = load();
            s.warnings().forEach(w -> err.println("sluice simulate: warning: " + w));
            err.flush();
            long useSeed = seed == null ? s.seed() : seed;
            long calls = Simulation.estimatedCalls(s);
            if (calls > maxCalls) {
                throw new CliError(String.format(Locale.ROOT, "the scenario would open about %,d calls (%d variant%s),"
                                + " more than --max-calls %,d (about %s of wall time at %.0f µs a call); raise"
                                + " --max-calls, or simulate fewer clients or seconds", calls, s.variants().size(),
                        s.variants().size() == 1 ? "" : "s", maxCalls,
                        ProgressLine.wall(calls * Simulation.SECONDS_PER_CALL), Simulation.SECONDS_PER_CALL * 1e6));
            }
            boolean showProgress = switch (progressMode) {
                case always -> true;
                case never -> false;
                case auto -> isLong(s);
            };
            ProgressLine progress = showProgress ? new ProgressLine(err, TimeSource.system()) : null;
            SimulationResult result = Simulation.run(s, useSeed, progress);
            if (progress != null) {
                progress.done();
            }
            if (json) {
                SeriesWriter.jsonLines(result, stdout);
            } else {
                TerminalTable.print(result, stdout, !summary);
            }
            if (out != null) {
                try {
                    for (Path p : ReportFiles.write(result, out)) {
                        err.println("wrote " + p);
                    }
                } catch (IOException e) {
                    throw new CliError(out + ": cannot write the report: " + e.getMessage());
                }
            }
            stdout.flush();
            err.flush();
            return 0;
        } catch (CliError e) {
            stdout.flush();
            err.println("sluice simulate: " + e.getMessage());
            err.flush();
            return 2;
        }
    }

    private Scenario load() {
        try {
            if (BuiltInScenarios.NAMES.contains(scenario)) {
                return BuiltInScenarios.load(scenario);
            }
            Path file = Path.of(scenario);
            if (!Files.exists(file)) {
                throw new CliError("--scenario: no built-in scenario and no file named " + scenario
                        + " (built-in: " + String.join(", ", BuiltInScenarios.NAMES) + ")");
            }
            return ScenarioReader.read(file);
        } catch (ConfigException e) {
            // one problem: one line; several: one line each, under a heading
            throw new CliError(e.problems().size() == 1 ? "invalid scenario: " + e.getMessage()
                    : "invalid scenario (" + e.problems().size() + " problems):" + System.lineSeparator()
                            + e.getMessage());
        }
    }

    private static boolean isLong(Scenario s) {
        long clientSeconds = 0;
        for (Scenario.Variant v : s.variants()) {
            clientSeconds += (long) v.fleet().clients() * s.duration().toSeconds();
        }
        return clientSeconds >= LONG_RUN_CLIENT_SECONDS;
    }

    /**
     * A one-line progress report on stderr, redrawn at most once a second of wall time: the variant,
     * the simulated seconds done, the wall time elapsed and an estimate of what is left (from the
     * share of the run done so far). Wall time comes from an injected {@link TimeSource}.
     */
    static final class ProgressLine implements Simulation.Progress {
        private static final long SECOND = 1_000_000_000L;

        private final PrintWriter err;
        private final TimeSource time;
        private final long start;
        private long lastDrawn;
        private int width;

        ProgressLine(PrintWriter err, TimeSource time) {
            this.err = err;
            this.time = time;
            this.start = time.nanoTime();
            this.lastDrawn = start;
        }

        @Override
        public void onSecond(int variant, int variants, int second, int seconds) {
            long now = time.nanoTime();
            boolean last = variant + 1 == variants && second + 1 == seconds;
            if (now - lastDrawn < SECOND && !last) {
                return;
            }
            lastDrawn = now;
            double elapsed = (now - start) / 1e9;
            double done = (variant + (second + 1) / (double) seconds) / variants;
            // the first seconds carry the clients' construction: too early to extrapolate from
            String left = done < 0.05 ? "estimating the rest" : "about " + wall(elapsed * (1 - done) / done) + " left";
            String line = String.format(Locale.ROOT, "simulating variant %d/%d: %d/%d s simulated, %s elapsed, %s",
                    variant + 1, variants, second + 1, seconds, wall(elapsed), left);
            // pad over the previous line's tail: \r redraws on a terminal, and a log file keeps each line readable
            err.print("\r" + line + " ".repeat(Math.max(1, width - line.length())));
            width = line.length() + 1;
            err.flush();
        }

        /** Ends the line: clears it on a terminal, leaving stderr as it was. */
        void done() {
            if (width > 0) {
                err.print("\r" + " ".repeat(width) + "\r");
                err.flush();
            }
        }

        /** {@code 12 s}, {@code 4 min}, {@code 1.5 h}. */
        static String wall(double seconds) {
            if (seconds < 60) {
                return Math.round(seconds) + " s";
            }
            if (seconds < 3600) {
                return Math.round(seconds / 60) + " min";
            }
            return String.format(Locale.ROOT, "%.1f h", seconds / 3600);
        }
    }
}
