package dev.sluice.cli;

import dev.sluice.cli.deliver.DeliverCommand;
import dev.sluice.cli.demo.DemoCommand;
import dev.sluice.cli.edge.EdgeCommand;
import dev.sluice.cli.keys.KeysCommand;
import dev.sluice.cli.explain.ExplainCommand;
import dev.sluice.cli.replay.ReplayCommand;
import dev.sluice.cli.simulate.SimulateCommand;
import dev.sluice.cli.upstream.UpstreamCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code sluice} command. Each subcommand is one class in this package. */
@Command(
        name = "sluice",
        mixinStandardHelpOptions = true,
        version = "sluice 0.1.0-SNAPSHOT",
        description = "Both halves of the HTTP rate-limit contract: edge, SDK, queue, delivery, simulator.",
        subcommands = {
            CommandLine.HelpCommand.class,
            DemoCommand.class,
            EdgeCommand.class,
            UpstreamCommand.class,
            ExplainCommand.class,
            ReplayCommand.class,
            SimulateCommand.class,
            DeliverCommand.class,
            KeysCommand.class
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The configured command line; tests call this to run commands in-process. */
    public static CommandLine newCommandLine() {
        return HelpText.reflow(new CommandLine(new Main()));
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
