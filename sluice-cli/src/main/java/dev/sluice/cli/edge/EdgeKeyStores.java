package dev.sluice.cli.edge;

import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.keys.KeyStoreConfig;
import dev.sluice.keys.KeyStores;
import dev.sluice.time.TimeSource;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The edge file's {@code key-store} section, read and opened for {@code sluice edge} (the edge module does not
 * depend on JDBC: {@code sluice-keys} does, and the command passes its cache and write side in).
 */
public final class EdgeKeyStores {

    private EdgeKeyStores() {
    }

    /**
     * The section of {@code file}, if it has one.
     *
     * @throws dev.sluice.config.ConfigException naming file, line and field of each problem
     */
    public static Optional<KeyStoreConfig> read(Path file) {
        ConfigNode root = ConfigNode.parse(file);
        if (!root.isMapping()) {
            return Optional.empty();
        }
        ConfigProblems problems = new ConfigProblems();
        Optional<KeyStoreConfig> c = root.get("key-store").flatMap(n -> KeyStoreConfig.read(n, problems));
        problems.throwIfAny();
        return c;
    }

    /**
     * The {@code quota-warnings} section of {@code file}, if it has one.
     *
     * @throws dev.sluice.config.ConfigException naming file, line and field of each problem
     */
    public static Optional<QuotaWarningDelivery.Config> readQuotaWarnings(Path file) {
        ConfigNode root = ConfigNode.parse(file);
        if (!root.isMapping()) {
            return Optional.empty();
        }
        ConfigProblems problems = new ConfigProblems();
        Optional<QuotaWarningDelivery.Config> c = root.get("quota-warnings")
                .flatMap(n -> QuotaWarningDelivery.Config.read(n, problems));
        problems.throwIfAny();
        return c;
    }

    /**
     * Opens the store the section names.
     *
     * @throws dev.sluice.edge.keys.KeyAdministration.KeyStoreException when it does not answer and the section
     *     says {@code on-unavailable-at-start: refuse} (its message is the one line to print)
     */
    public static KeyStores open(KeyStoreConfig c, EdgeConfig edge, TimeSource time) {
        KeyIds ids = edge.keyIdSecret().map(KeyIds::new).orElse(KeyIds.DEFAULT);
        return KeyStores.open(c, ids, time);
    }
}
