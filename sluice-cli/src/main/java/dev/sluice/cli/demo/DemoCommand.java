package dev.sluice.cli.demo;

import dev.sluice.examples.demo.DemoRun;
import dev.sluice.examples.demo.DemoSettings;
import dev.sluice.examples.demo.ShiplaneEdge;
import dev.sluice.config.ConfigException;
import dev.sluice.examples.demo.fleet.ClientKind;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice demo}: Shiplane behind the edge, a fleet of clients, a live table, an HTML report.
 * Ctrl-C stops the run early and still writes the report of what ran; the JVM then exits 130 (128 + SIGINT).
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the sample API (Shiplane) behind the Sluice edge and a fleet of virtual clients",
            "calling it over loopback HTTP, with a blip in the middle (Shiplane answers 503 or stalls),",
            "three times: with the naive retry loop of the incident, a careful hand-written retry, and",
            "the Sluice SDK. Prints a per-second table for each, then the comparison of the headline",
            "figures, and writes an HTML report with the three side by side. The edge's log goes to a",
            "file (--edge-log), never into the table.",
            "Ctrl-C stops early, still writes the report of what ran, and exits 130."
        },
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the run completed and the report was written",
            "1:a port or the report file could not be used", "2:bad options or an invalid edge configuration",
            "130:stopped with Ctrl-C (SIGINT); the report of what ran was written"})
public final class DemoCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "200",
            description = "virtual clients (default ${DEFAULT-VALUE}): 90 %% Free (3 per key), 10 %% Trial (2 per key)")
    int clients;

    @Option(names = "--duration", paramLabel = "SECONDS", defaultValue = "40",
            description = "how long each client's run lasts (default ${DEFAULT-VALUE}; the demo runs one per client)")
    int durationSeconds;

    @Option(names = "--blip-at", paramLabel = "SECONDS",
            description = "when Shiplane's blip starts (default: the middle of the run)")
    Integer blipAtSeconds;

    @Option(names = "--blip-for", paramLabel = "SECONDS",
            description = "how long the blip lasts (default 5, shortened to end with the run; a length given"
                    + " here that does not fit the run is refused)")
    Integer blipForSeconds;

    @Option(names = "--no-blip", description = "no blip")
    boolean noBlip;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "the edge's port (default: a free one, printed at the start)")
    int port;

    @Option(names = "--report", paramLabel = "PATH", defaultValue = "demo-report.html",
            description = "where to write the HTML report (default ${DEFAULT-VALUE}); missing parent"
                    + " directories are created")
    Path report;

    private static final String EDGE_LOG_LEVEL = "org.slf4j.simpleLogger.log.dev.sluice.edge.EdgeServer";

    static final Path DEFAULT_CONFIG = Path.of("examples", "shiplane.yaml");

    @Option(names = "--config", paramLabel = "FILE", defaultValue = "examples/shiplane.yaml",
            description = "the edge configuration the demo starts from (default ${DEFAULT-VALUE})")
    Path config;

    @Option(names = "--client", paramLabel = "all|naive|careful|sdk", defaultValue = "all", split = ",",
            description = "which clients to run, in order, comma-separated (default ${DEFAULT-VALUE}: naive, careful,"
                    + " sdk; \"plain\" is careful's former name)")
    List<String> client;

    @Option(names = "--edge-log", paramLabel = "FILE", defaultValue = "demo-edge.log",
            description = "where the edge's (and everything else's) log lines go (default ${DEFAULT-VALUE}; named at"
                    + " the start, never printed into the table)")
    Path edgeLog;

    @Option(names = "--recovery-capacity", paramLabel = "N|limit|off", defaultValue = "limit",
            description = "requests/s Shiplane takes while it recovers: after the blip it stays overloaded until,"
                    + " 2 s in a row, the requests past the edge's limits stay at or under it (default"
                    + " ${DEFAULT-VALUE}: the fleet's limit, the sum of its keys' burst rates; off: back when the"
                    + " blip ends)")
    String recoveryCapacity;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "42",
            description = "seed of the fleet's and Shiplane's randomness (default ${DEFAULT-VALUE})")
    long seed;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DemoSettings settings;
        try {
            settings = settings();
        } catch (IllegalArgumentException e) {
            err.println("sluice demo: " + e.getMessage());
            err.flush();
            return 2;
        }
        if (!Files.isReadable(settings.config()) && settings.config().equals(DEFAULT_CONFIG)) {
            settings = besideTheJar().map(settings::withConfig).orElse(settings);
        }
        if (!Files.isReadable(settings.config())) {
            err.println("sluice demo: cannot read " + settings.config().toAbsolutePath()
                    + " (run from the repository root, or pass --config FILE)");
            err.flush();
            return 2;
        }
        // the setup block prints the edge's address; its own start-up log line would only repeat it
        if (System.getProperty(EDGE_LOG_LEVEL) == null) {
            System.setProperty(EDGE_LOG_LEVEL, "warn");
        }
        Optional<Path> log = logToFile(edgeLog.toAbsolutePath(), err);
        DemoRun run = new DemoRun(settings, ShiplaneEdge.starter(), TimeSource.system(), out, isTerminal(), log);
        Thread hook = new Thread(() -> {
            run.requestStop();
            try {
                run.awaitFinished(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "sluice-demo-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            run.run();
            return 0;
        } catch (ConfigException e) {
            out.flush();
            err.println("sluice demo: invalid configuration:" + System.lineSeparator() + e.getMessage());
            err.flush();
            return 2;
        } catch (IllegalArgumentException e) {
            out.flush();
            err.println("sluice demo: " + e.getMessage());
            err.flush();
            return 2;
        } catch (IOException e) {
            out.flush();
            err.println("sluice demo: " + e.getMessage());
            err.flush();
            return 1;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C: the hook is running and waits for this run, which is over
            }
        }
    }

    private DemoSettings settings() {
        List<ClientKind> kinds = new ArrayList<>();
        for (String name : client) {
            switch (name.strip().toLowerCase(Locale.ROOT)) {
                case "all" -> kinds.addAll(List.of(ClientKind.values()));
                case "naive" -> kinds.add(ClientKind.NAIVE);
                case "careful", "plain" -> kinds.add(ClientKind.CAREFUL);
                case "sdk" -> kinds.add(ClientKind.SDK);
                default -> throw new IllegalArgumentException("--client must be all, naive, careful or sdk (or a"
                        + " comma-separated list of them), was " + name);
            }
        }
        if (kinds.stream().distinct().count() != kinds.size()) {
            throw new IllegalArgumentException("--client names a client twice: " + String.join(",", client));
        }
        DemoSettings s = DemoSettings.defaults().withDuration(durationSeconds).withClients(clients)
                .withEdgePort(port).withReport(report).withConfig(config).withSeed(seed).withKinds(kinds)
                .withRecoveryCapacity(recoveryCapacity(recoveryCapacity));
        if (noBlip) {
            return s.withoutBlip();
        }
        int at = blipAtSeconds != null ? blipAtSeconds : durationSeconds / 2;
        // the default length is shortened to fit the run; a length the user gave is checked, and refused
        return blipForSeconds == null ? s.withBlipAt(at) : s.withBlip(at, blipForSeconds);
    }

    /** {@code --recovery-capacity}: "limit" is 0 (the fleet's limit), "off" infinite, else a positive number. */
    static double recoveryCapacity(String value) {
        String v = value.strip().toLowerCase(Locale.ROOT);
        if (v.equals("limit")) {
            return 0;
        }
        if (v.equals("off")) {
            return Double.POSITIVE_INFINITY;
        }
        try {
            double d = Double.parseDouble(v);
            if (d > 0 && !Double.isInfinite(d)) {
                return d;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("--recovery-capacity must be a number of requests/s > 0, limit or off, was "
                + value);
    }

    /**
     * Sends the log lines of this JVM (the edge's: retry-loop escalations, warnings) to {@code file}
     * instead of stderr, so they never interleave with the live table (SLF4J simple logger's
     * {@code logFile}, read when the first logger is made: the edge's classes are not loaded yet).
     * Empty when the logging was configured otherwise ({@code -Dorg.slf4j.simpleLogger.logFile=...}),
     * or was already initialised (the command run in-process, as tests do), so nothing is claimed.
     */
    private static Optional<Path> logToFile(Path file, PrintWriter err) {
        if (System.getProperty(LOG_FILE) != null) {
            return Optional.empty();
        }
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, "");
        } catch (IOException e) {
            err.println("sluice demo: cannot write the edge log " + file + " (" + e.getMessage() + "); logging to stderr");
            err.flush();
            return Optional.empty();
        }
        System.setProperty(LOG_FILE, file.toString());
        // the first line tells whether the setting took: a logger made earlier keeps writing to stderr
        org.slf4j.LoggerFactory.getLogger(DemoCommand.class).info("sluice demo: the log of the edge and of the demo's"
                + " other components");
        try {
            if (Files.size(file) > 0) {
                return Optional.of(file);
            }
        } catch (IOException e) {
            // not written: say nothing about a file
        }
        System.clearProperty(LOG_FILE);
        return Optional.empty();
    }

    private static final String LOG_FILE = "org.slf4j.simpleLogger.logFile";

    /**
     * The repository's {@code examples/shiplane.yaml} when the command runs from the launcher's jar
     * ({@code sluice-cli/target/sluice.jar}) outside the repository root.
     */
    private static java.util.Optional<Path> besideTheJar() {
        try {
            java.security.CodeSource source = DemoCommand.class.getProtectionDomain().getCodeSource();
            if (source == null) {
                return java.util.Optional.empty();
            }
            Path jar = Path.of(source.getLocation().toURI());
            Path root = jar.getParent() == null || jar.getParent().getParent() == null ? null
                    : jar.getParent().getParent().getParent();
            Path candidate = root == null ? null : root.resolve(DEFAULT_CONFIG);
            return candidate != null && Files.isReadable(candidate) ? java.util.Optional.of(candidate)
                    : java.util.Optional.empty();
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }

    /**
     * Whether stdout is an interactive terminal (the progress line is drawn only there). The JDK
     * gives no console when stdout is redirected or piped; {@code TERM=dumb} opts out too.
     */
    static boolean isTerminal() {
        return System.console() != null && !"dumb".equals(System.getenv("TERM"));
    }
}
