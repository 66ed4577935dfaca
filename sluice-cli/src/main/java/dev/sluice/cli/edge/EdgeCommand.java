package dev.sluice.cli.edge;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.config.ConfigException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code sluice edge --config FILE}: runs the edge (SPEC §3) until interrupted. The configuration is
 * re-read when its file changes and on {@code SIGHUP}; a broken file is refused with its errors
 * logged and the running configuration kept (SPEC §3.13a).
 */
@Command(name = "edge", mixinStandardHelpOptions = true,
        description = {"Runs the rate-limiting edge in front of one upstream API.",
                "Reloads the configuration when the file changes or on SIGHUP."})
public final class EdgeCommand implements Callable<Integer> {

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the YAML configuration")
    Path config;

    @Option(names = "--port", paramLabel = "PORT", description = "override listen's port")
    Integer port;

    @Option(names = "--admin-port", paramLabel = "PORT", description = "override admin's port")
    Integer adminPort;

    @Option(names = "--upstream", paramLabel = "URL", description = "override upstream.url (http://host:port)")
    URI upstream;

    @Option(names = "--no-watch", description = "do not reload when the file changes (SIGHUP still does)")
    boolean noWatch;

    @Override
    public Integer call() throws InterruptedException {
        if (!Files.isReadable(config)) {
            System.err.println("sluice edge: cannot read " + config);
            return 2;
        }
        EdgeConfig c;
        try {
            c = EdgeConfig.load(config);
            if (port != null) {
                c = c.withListenPort(port);
            }
            if (adminPort != null) {
                c = c.withAdminPort(adminPort);
            }
            if (upstream != null) {
                c = c.withUpstreamUrl(upstream);
            }
        } catch (ConfigException e) {
            System.err.println("sluice edge: the configuration has errors:");
            System.err.println(e.getMessage());
            return 2;
        } catch (IllegalArgumentException e) {
            System.err.println("sluice edge: " + e.getMessage());
            return 2;
        }
        EdgeServer edge;
        try {
            edge = EdgeServer.start(c, EdgeOptions.defaults().withWatchConfig(!noWatch));
        } catch (IllegalStateException e) {
            System.err.println("sluice edge: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Hangup.install(edge::reloadFromSourceLogged);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            edge.close();
            stopped.countDown();
        }, "sluice-edge-shutdown"));
        System.out.println("sluice edge: listening on " + edge.address() + " (" + edge.transport() + "), metrics on "
                + (edge.adminPort() < 0 ? "off" : "127.0.0.1:" + edge.adminPort() + "/metrics") + ", upstream "
                + c.upstream().url());
        stopped.await();
        return 0;
    }
}
