package dev.sluice.cli.deliver;

import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.ReplayRefusedException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sluice deliver replay ID...}: re-enqueues dead letters with their original keys. */
@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Re-enqueues dead letters with their ORIGINAL idempotency key (SPEC §6.6).",
            "Refused for a key delivered since, already queued, in review, or to a disabled destination."})
final class ReplayCommand implements Callable<Integer> {

    @Mixin
    DeliverOptions options;

    @Parameters(arity = "1..*", paramLabel = "ID", description = "Dead-letter ids (see dead-letters).")
    List<Long> ids;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        return options.onExistingLedger(spec, (delivery, out) -> {
            int refused = 0;
            for (long id : ids) {
                try {
                    LedgerEntry e = delivery.replay(id);
                    out.printf("replayed %d: ledger=%d key=%s destination=%s now %s%n", id, e.ledgerId(),
                            e.event().idempotencyKey(), e.event().destination(), e.state().dbValue());
                } catch (ReplayRefusedException e) {
                    refused++;
                    err.printf("refused %d (%s): %s%n", id, e.reason().name().toLowerCase(Locale.ROOT),
                            e.getMessage());
                }
            }
            return refused == 0 ? 0 : Guard.REFUSED;
        });
    }
}
