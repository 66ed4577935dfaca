package dev.sluice.cli.deliver;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.config.DeliveryFile;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every {@code sluice deliver} subcommand shares: where the config and the store are. */
public final class DeliverOptions {

    static final Path DEFAULT_CONFIG = Path.of("sluice-delivery.yaml");

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "YAML config (store, worker, max-age, redact, destinations). Default: ./sluice-delivery.yaml"
                    + " when present, else built-in defaults.")
    Path config;

    @Option(names = "--store", paramLabel = "LOCATION",
            description = "Overrides the config's store: sqlite:PATH (default sqlite:./sluice-delivery.db)"
                    + " or a jdbc:postgresql: URL.")
    String store;

    /**
     * Reads the config (an empty one when there is no file and none was named).
     *
     * @throws dev.sluice.delivery.config.ConfigException naming file, line and field
     */
    DeliveryFile load() {
        if (config == null) {
            if (!Files.exists(DEFAULT_CONFIG)) {
                return DeliveryFile.defaults();
            }
            return DeliveryFile.load(DEFAULT_CONFIG);
        }
        return DeliveryFile.load(config);
    }

    /** Opens the store the config (or {@code --store}) names, creating or migrating it. */
    JdbcDeliveryStore open(DeliveryFile file) {
        // HikariCP announces every pool start and stop at INFO; a command line wants only warnings
        if (System.getProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
        }
        String location = store != null ? store : file.store();
        JdbcDeliveryStore.Options options = JdbcDeliveryStore.Options.defaults();
        if (file.schema() != null && location.startsWith("jdbc:postgresql:")) {
            options = options.withSchema(file.schema());
        }
        options = options.withPoolSize(file.config().concurrency() + 4);
        return JdbcDeliveryStore.open(location, options);
    }

    /** A delivery over {@code store} with the config's settings and the system clock. */
    static Delivery delivery(DeliveryFile file, JdbcDeliveryStore store, dev.sluice.delivery.spi.DeliveryListener l) {
        return Delivery.builder(store).config(file.config()).listener(l).build();
    }
}
