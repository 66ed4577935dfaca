package dev.sluice.cli.deliver;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.config.DeliveryFile;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options {@code sluice deliver} and every subcommand share: where the config and the store
 * are. They may be given at any level ({@code sluice deliver -c F status} or
 * {@code sluice deliver status -c F}); the one nearest the subcommand wins.
 */
public final class DeliverOptions {

    static final Path DEFAULT_CONFIG = Path.of("sluice-delivery.yaml");

    @Option(names = {"-c", "--config"}, paramLabel = "FILE",
            description = "YAML config: store, worker, max-age, redact, destinations (default ./sluice-delivery.yaml"
                    + " when present, else built-in defaults). Before or after the subcommand.")
    Path config;

    @Option(names = "--store", paramLabel = "LOCATION",
            description = "Store instead of the config's: sqlite:PATH or jdbc:postgresql://HOST/DB?... "
                    + "Default: sqlite:./sluice-delivery.db")
    String store;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /** The value of {@code name} given nearest to the subcommand, or {@code null}. */
    private <T> T nearest(String name, T own) {
        if (own != null) {
            return own;
        }
        for (CommandSpec s = mixee == null ? null : mixee.parent(); s != null; s = s.parent()) {
            OptionSpec o = s.findOption(name);
            if (o != null && o.getValue() != null) {
                return o.getValue();
            }
        }
        return null;
    }

    /**
     * Reads the config (an empty one when there is no file and none was named).
     *
     * @throws dev.sluice.config.ConfigException naming file, line and field
     */
    DeliveryFile load() {
        Path config = nearest("--config", this.config);
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
        return open(file, true);
    }

    /**
     * Opens the store the config (or {@code --store}) names for reading or repair; creates nothing.
     *
     * @throws dev.sluice.delivery.NoStoreException if there is none ("no ledger at PATH")
     */
    JdbcDeliveryStore openExisting(DeliveryFile file) {
        return open(file, false);
    }

    /** The store location in force: {@code --store} (nearest the subcommand) over the config's. */
    String location(DeliveryFile file) {
        String store = nearest("--store", this.store);
        return store != null ? store : file.store();
    }

    private JdbcDeliveryStore open(DeliveryFile file, boolean create) {
        // HikariCP announces every pool start and stop at INFO; a command line wants only warnings
        if (System.getProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.com.zaxxer.hikari", "warn");
        }
        String location = location(file);
        JdbcDeliveryStore.Options options = JdbcDeliveryStore.Options.defaults();
        if (file.schema() != null && location.startsWith("jdbc:postgresql:")) {
            options = options.withSchema(file.schema());
        }
        options = options.withPoolSize(file.config().concurrency() + 4);
        return create ? JdbcDeliveryStore.open(location, options) : JdbcDeliveryStore.openExisting(location, options);
    }

    /** What a read-or-repair subcommand does with the existing ledger; returns the exit code. */
    @FunctionalInterface
    interface LedgerCommand {
        int run(Delivery delivery, PrintWriter out) throws Exception;
    }

    /**
     * Loads the config, opens the existing store (creating nothing) and runs {@code command} on a
     * delivery over it, with the typed errors turned into one line on stderr and the exit codes of
     * {@link Guard}.
     */
    int onExistingLedger(CommandSpec spec, LedgerCommand command) throws Exception {
        return Guard.run(spec.commandLine().getErr(), () -> {
            DeliveryFile file = load();
            try (JdbcDeliveryStore store = openExisting(file);
                    Delivery delivery = delivery(file, store, DeliveryListener.NONE)) {
                return command.run(delivery, spec.commandLine().getOut());
            }
        });
    }

    /** A delivery over {@code store} with the config's settings and the system clock. */
    static Delivery delivery(DeliveryFile file, JdbcDeliveryStore store, DeliveryListener l) {
        return Delivery.builder(store).config(file.config()).listener(l).build();
    }
}
