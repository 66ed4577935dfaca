package dev.sluice.cli.simulate;

import dev.sluice.cli.CliError;
import dev.sluice.limiter.config.ConfigException;
import dev.sluice.sim.Simulation;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.report.ReportFiles;
import dev.sluice.sim.report.SeriesWriter;
import dev.sluice.sim.report.TerminalTable;
import dev.sluice.sim.scenario.BuiltInScenarios;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioReader;
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
        exitCodeList = {"0:simulated", "2:unknown scenario or invalid scenario file (file, line and field are named)"})
public final class SimulateCommand implements Callable<Integer> {

    /** Client-seconds above which a run prints a progress line. */
    static final long LONG_RUN_CLIENT_SECONDS = 200_000;

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

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Scenario s = load();
            long useSeed = seed == null ? s.seed() : seed;
            Simulation.Progress progress = isLong(s) ? new ProgressLine(err) : null;
            SimulationResult result = Simulation.run(s, useSeed, progress);
            if (progress != null) {
                err.print("\r" + " ".repeat(60) + "\r");
                err.flush();
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
            throw new CliError("invalid scenario:" + System.lineSeparator() + e.getMessage());
        }
    }

    private static boolean isLong(Scenario s) {
        long clientSeconds = 0;
        for (Scenario.Variant v : s.variants()) {
            clientSeconds += (long) v.fleet().clients() * s.duration().toSeconds();
        }
        return clientSeconds >= LONG_RUN_CLIENT_SECONDS;
    }

    /** A one-line progress report on stderr, redrawn each tenth of a variant. */
    private static final class ProgressLine implements Simulation.Progress {
        private final PrintWriter err;

        ProgressLine(PrintWriter err) {
            this.err = err;
        }

        @Override
        public void onSecond(int variant, int variants, int second, int seconds) {
            int step = Math.max(1, seconds / 10);
            if ((second + 1) % step == 0 || second + 1 == seconds) {
                err.print(String.format(Locale.ROOT, "\rsimulating variant %d/%d: %d/%d s", variant + 1, variants,
                        second + 1, seconds));
                err.flush();
            }
        }
    }
}
