package dev.sluice.cli.edge;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.keys.KeyStoreConfig;
import dev.sluice.keys.KeyStores;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import dev.sluice.config.ConfigException;
import dev.sluice.config.HostPort;
import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code sluice edge --config FILE}: runs the edge (SPEC §3) until the process is stopped (or the
 * command's thread interrupted). The configuration is re-read when its file changes and on
 * {@code SIGHUP}; a broken file is refused with its errors logged and the running configuration kept
 * (SPEC §3.13a). The limiter store is the one its {@code store} section names ({@link EdgeStores}):
 * memory, or a Redis shared by every replica (SPEC §3.14).
 */
@Command(name = "edge", mixinStandardHelpOptions = true,
        description = {"Runs the rate-limiting edge in front of one upstream API (HTTP/1.1 and h2c on one port,"
                + " or HTTPS with HTTP/2 by ALPN).",
                "Reloads the configuration when the file changes or on SIGHUP; a broken file is refused."},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:stopped",
                "1:could not start (port in use, transport missing, Redis down with store.require-at-start)",
                "2:unreadable or invalid configuration (each problem names file, line and field)"})
public final class EdgeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the YAML configuration")
    Path config;

    @Option(names = "--port", paramLabel = "PORT", description = "override listen's port (0: any free port)")
    Integer port;

    @Option(names = "--admin-port", paramLabel = "PORT", description = "override admin's port (metrics)")
    Integer adminPort;

    @Option(names = "--upstream", paramLabel = "URL", description = "override upstream.url (http://host:port)")
    URI upstream;

    @Option(names = "--no-watch", description = "do not reload when the file changes (SIGHUP still does)")
    boolean noWatch;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isReadable(config)) {
            err.println("sluice edge: cannot read " + config);
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
            err.println("sluice edge: " + config + " has errors:");
            err.println(e.getMessage());
            return 2;
        } catch (IllegalArgumentException e) {
            err.println("sluice edge: " + e.getMessage());
            return 2;
        }
        Optional<KeyStoreConfig> keyStoreConfig;
        Optional<QuotaWarningDelivery.Config> warningsConfig;
        try {
            keyStoreConfig = EdgeKeyStores.read(config);
            warningsConfig = EdgeKeyStores.readQuotaWarnings(config);
        } catch (ConfigException e) {
            err.println("sluice edge: " + config + " has errors:");
            err.println(e.getMessage());
            return 2;
        }
        LimiterStore store;
        try {
            store = EdgeStores.open(c.store(), TimeSource.system());
        } catch (IllegalArgumentException e) {
            err.println("sluice edge: " + config + ": store: " + e.getMessage());
            return 2;
        }
        EdgeStores.Probe probe = EdgeStores.probe(c.store(), store, TimeSource.system(), Duration.ofSeconds(1));
        if (!probe.answered() && c.store() instanceof StoreConfig.Redis r && r.requireAtStart()) {
            store.close();
            err.println("sluice edge: " + config + ": " + probe.line());
            return 1;
        }
        if (c.store() instanceof StoreConfig.Redis) { // the in-memory store has nothing to report
            PrintWriter to = probe.answered() ? out : err;
            to.println("sluice edge: " + probe.line());
            to.flush();
        }
        Optional<KeyStores> keyStores;
        try {
            EdgeConfig edgeConfig = c;
            keyStores = keyStoreConfig.map(k -> EdgeKeyStores.open(k, edgeConfig, TimeSource.system()));
        } catch (KeyAdministration.KeyStoreException e) {
            store.close();
            err.println("sluice edge: " + config + ": " + e.getMessage());
            return 1;
        }
        Optional<QuotaWarningDelivery> warnings;
        try {
            warnings = warningsConfig.map(w -> new QuotaWarningDelivery(w,
                    keyStores.map(k -> (KeyAdministration) k.administration())));
        } catch (RuntimeException e) {
            keyStores.ifPresent(KeyStores::close);
            store.close();
            err.println("sluice edge: " + config + ": quota-warnings: the delivery store does not open: "
                    + e.getMessage());
            return 1;
        }
        Optional<IdempotencyStore> records = EdgeStores.idempotency(c, store);
        List<MeterBinder> binders = new ArrayList<>(RedisStoreMeters.of(store).stream().toList());
        keyStores.ifPresent(k -> binders.add(k.source()));
        warnings.ifPresent(binders::add);
        EdgeOptions options = EdgeOptions.defaults().withStore(store).withWatchConfig(!noWatch)
                .withMeterBinders(binders); // fallback counts, key cache counts on /metrics
        if (warnings.isPresent()) {
            options = options.withQuotaWarningSink(warnings.get());
        }
        if (keyStores.isPresent()) {
            options = options.withKeySource(keyStores.get().source())
                    .withKeyAdministration(keyStores.get().administration());
        }
        EdgeServer edge;
        try {
            edge = EdgeServer.start(c, records.map(options::withIdempotencyStore).orElse(options));
        } catch (ConfigException e) {
            records.ifPresent(IdempotencyStore::close);
            keyStores.ifPresent(KeyStores::close);
            warnings.ifPresent(QuotaWarningDelivery::close);
            store.close();
            err.println("sluice edge: " + config + " has errors:");
            err.println(e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            records.ifPresent(IdempotencyStore::close);
            keyStores.ifPresent(KeyStores::close);
            warnings.ifPresent(QuotaWarningDelivery::close);
            store.close();
            err.println("sluice edge: " + e.getMessage());
            return 1;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            edge.close();
            records.ifPresent(IdempotencyStore::close);
            keyStores.ifPresent(KeyStores::close);
            warnings.ifPresent(QuotaWarningDelivery::close);
            store.close();
            stopped.countDown();
        }, "sluice-edge-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        Hangup.install(edge::reloadFromSourceLogged);
        HostPort listening = edge.listening(); // "0.0.0.0:8080", not the socket's "/[0:0:0:0:0:0:0:0]:8080"
        out.println("sluice edge: listening on " + listening + " (" + (edge.scheme().equals("https") ? "https, " : "")
                + edge.transport() + "), metrics on "
                + (edge.adminPort() < 0 ? "off" : c.admin().orElseThrow().host() + ":" + edge.adminPort() + "/metrics")
                + ", upstream " + c.upstream().url() + ", store " + c.store()
                + (records.isPresent() ? " (idempotency records too)" : "")
                + keyStores.map(k -> ", keys also from " + k.administration().redacted()).orElse(""));
        out.flush();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Runtime.getRuntime().removeShutdownHook(hook);
            edge.close();
            records.ifPresent(IdempotencyStore::close);
            keyStores.ifPresent(KeyStores::close);
            warnings.ifPresent(QuotaWarningDelivery::close);
            store.close();
            Thread.currentThread().interrupt();
        }
        return 0;
    }
}
