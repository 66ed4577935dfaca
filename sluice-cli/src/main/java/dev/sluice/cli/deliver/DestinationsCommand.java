package dev.sluice.cli.deliver;

import dev.sluice.delivery.DestinationState;
import dev.sluice.delivery.NoSuchEntryException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sluice deliver destinations [enable NAME]}. */
@Command(name = "destinations", mixinStandardHelpOptions = true,
        description = "Lists destinations in the store; 'enable NAME' re-enables one disabled by a 410.",
        subcommands = DestinationsCommand.Enable.class)
final class DestinationsCommand implements Callable<Integer> {

    @Mixin
    DeliverOptions options;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return options.onExistingLedger(spec, (delivery, out) -> {
            if (delivery.destinations().isEmpty()) {
                out.println("no destinations (they are registered by 'enqueue' and 'run' from the config)");
            }
            for (DestinationState d : delivery.destinations()) {
                out.printf("%-20s %-8s %s%s%n", d.destination().name(), d.enabled() ? "enabled" : "DISABLED",
                        d.destination().url(), d.enabled() ? "" : "  (" + d.disabledReason() + ")");
            }
            return 0;
        });
    }

    @Command(name = "enable", mixinStandardHelpOptions = true, description = "Re-enables a destination disabled by a 410.")
    static final class Enable implements Callable<Integer> {
        @Mixin
        DeliverOptions options;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            return options.onExistingLedger(spec, (delivery, out) -> {
                if (!delivery.enableDestination(name)) {
                    throw new NoSuchEntryException("no destination '" + name + "'");
                }
                out.println("enabled " + name);
                return 0;
            });
        }
    }
}
