package dev.sluice.cli.demo;

import dev.sluice.examples.demo.DemoRun;
import dev.sluice.examples.demo.DemoSettings;
import dev.sluice.examples.demo.ShiplaneEdge;
import dev.sluice.config.ConfigException;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
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
            "calling it over loopback HTTP, with a 503 blip in the middle. Prints a per-second table",
            "(offered, admitted, 429 rate_limited, 429 quota_exhausted, 503, retries, and the SDK's",
            "local drops and budget exhaustions), then writes an HTML report with charts.",
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
            description = "virtual clients (default ${DEFAULT-VALUE}): 60 %% Free, 10 %% Trial, 30 %% Pro")
    int clients;

    @Option(names = "--duration", paramLabel = "SECONDS", defaultValue = "60",
            description = "how long the fleet runs (default ${DEFAULT-VALUE})")
    int durationSeconds;

    @Option(names = "--blip-at", paramLabel = "SECONDS",
            description = "when Shiplane starts answering 503 (default: the middle of the run)")
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

    @Option(names = "--client", paramLabel = "sdk|plain", defaultValue = "sdk",
            description = "the fleet's HTTP client: the Sluice SDK, or the JDK client with a hand-written retry"
                    + " (default ${DEFAULT-VALUE})")
    String client;

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
        DemoRun run = new DemoRun(settings, ShiplaneEdge.starter(), TimeSource.system(), out, isTerminal());
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
        DemoSettings.ClientKind kind = switch (client.toLowerCase(Locale.ROOT)) {
            case "sdk" -> DemoSettings.ClientKind.SDK;
            case "plain" -> DemoSettings.ClientKind.PLAIN;
            default -> throw new IllegalArgumentException("--client must be sdk or plain, was " + client);
        };
        DemoSettings s = DemoSettings.defaults().withDuration(durationSeconds).withClients(clients)
                .withEdgePort(port).withReport(report).withConfig(config).withSeed(seed).withClient(kind);
        if (noBlip) {
            return s.withoutBlip();
        }
        int at = blipAtSeconds != null ? blipAtSeconds : durationSeconds / 2;
        // the default length is shortened to fit the run; a length the user gave is checked, and refused
        return blipForSeconds == null ? s.withBlipAt(at) : s.withBlip(at, blipForSeconds);
    }

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
