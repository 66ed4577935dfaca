package dev.sluice.cli.deliver;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code sluice deliver}: the durable delivery worker (SPEC §6). */
@Command(name = "deliver",
        mixinStandardHelpOptions = true,
        headerHeading = "%n",
        header = "Durable outbound delivery (webhooks, partner calls) with retries and dead letters.",
        description = {"Exactly-once in effect across crashes, throttles and replicas.",
            "Store: a SQLite file (default ./sluice-delivery.db) or PostgreSQL."},
        subcommands = {RunCommand.class, EnqueueCommand.class, StatusCommand.class, DeadLettersCommand.class,
            ReplayCommand.class, ReviewCommand.class, DestinationsCommand.class})
public final class DeliverCommand implements Runnable {

    @Mixin
    DeliverOptions options; // -c/--store before the subcommand; the subcommands read them from here

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
