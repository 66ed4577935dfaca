package dev.sluice.cli.upstream;

import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice upstream}: runs the Shiplane sample API alone, until Ctrl-C. */
@Command(
        name = "upstream",
        mixinStandardHelpOptions = true,
        description = {
            "Runs Shiplane, the sample shipping-label API, alone: put the edge in front of it",
            "(sluice edge --config examples/shiplane.yaml) or call it directly. Ctrl-C stops it.",
            "Routes: POST /v1/labels (needs Idempotency-Key), POST /v1/labels:batch, GET /v1/quotes,",
            "POST /v1/login; GET /_shiplane/stats; POST /_shiplane/blip?on=true|false answers 503 until off."
        })
public final class UpstreamCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", description = "TCP port (default ${DEFAULT-VALUE}; 0 picks a free one)",
            defaultValue = "8081")
    int port;

    @Option(names = "--host", paramLabel = "HOST", description = "address to bind (default ${DEFAULT-VALUE})",
            defaultValue = "127.0.0.1")
    String host;

    @Option(names = "--latency-ms", paramLabel = "MS", description = "mean answer time (default ${DEFAULT-VALUE})",
            defaultValue = "20")
    long latencyMillis;

    @Option(names = "--jitter-ms", paramLabel = "MS",
            description = "answers take latency +/- jitter, uniformly (default ${DEFAULT-VALUE})", defaultValue = "5")
    long jitterMillis;

    @Option(names = "--seed", paramLabel = "N", description = "seed of latencies and generated values (default ${DEFAULT-VALUE})",
            defaultValue = "42")
    long seed;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        ShiplaneConfig config;
        try {
            config = ShiplaneConfig.defaults().withHost(host).withPort(port)
                    .withLatency(Duration.ofMillis(latencyMillis), Duration.ofMillis(jitterMillis))
                    .withRandom(new SplittableRandom(seed));
        } catch (IllegalArgumentException e) {
            err.println("sluice upstream: " + e.getMessage());
            return 2;
        }
        ShiplaneServer server;
        try {
            server = ShiplaneServer.start(config);
        } catch (IOException e) {
            err.println("sluice upstream: cannot listen on " + host + ":" + port + ": " + e.getMessage()
                    + " (another program has the port? try --port 0)");
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "shiplane-shutdown"));
        out.printf("Shiplane listening on %s (latency %d ms +/- %d ms). Ctrl-C stops it.%n", server.baseUri(),
                latencyMillis, jitterMillis);
        out.printf("  try: curl -s -X POST -H 'Idempotency-Key: k1' %s/v1/labels%n", server.baseUri());
        out.printf("  blip: curl -s -X POST '%s/_shiplane/blip?on=true'   (and ?on=false)%n", server.baseUri());
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            server.close();
        }
        return 0;
    }
}
