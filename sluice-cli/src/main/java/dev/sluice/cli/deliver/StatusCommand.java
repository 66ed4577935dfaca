package dev.sluice.cli.deliver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.DestinationState;
import dev.sluice.delivery.LedgerState;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice deliver status}: counts by state, dead letters by reason, destinations. */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Deliveries by state, dead letters by reason, the queue's head, and the destinations.")
final class StatusCommand implements Callable<Integer> {

    @Mixin
    DeliverOptions options;

    @Option(names = "--json", description = "Print one JSON object instead of the text.")
    boolean json;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return options.onExistingLedger(spec, (delivery, out) -> {
            DeliveryStatus s = delivery.status();
            List<DestinationState> destinations = delivery.destinations();
            if (json) {
                ObjectMapper m = new ObjectMapper();
                ObjectNode root = m.createObjectNode();
                root.put("at", s.at().toString());
                ObjectNode states = root.putObject("states");
                for (LedgerState st : LedgerState.values()) {
                    states.put(st.dbValue(), s.count(st));
                }
                root.put("dueNow", s.dueNow());
                root.put("nextEligibleAt", s.nextEligibleAt() == null ? null : s.nextEligibleAt().toString());
                ObjectNode dead = root.putObject("deadLetters");
                for (DeadLetterReason r : DeadLetterReason.values()) {
                    dead.put(r.dbValue(), s.deadLettersByReason().get(r));
                }
                var ds = root.putArray("destinations");
                for (DestinationState d : destinations) {
                    ObjectNode n = ds.addObject();
                    n.put("name", d.destination().name());
                    n.put("url", d.destination().url().toString());
                    n.put("perSecond", d.destination().rate().perSecond());
                    n.put("burst", d.destination().rate().burst());
                    n.put("idempotent", d.destination().idempotent());
                    n.put("enabled", d.enabled());
                    n.put("disabledReason", d.disabledReason());
                }
                out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(root));
                return 0;
            }
            out.println("deliveries at " + s.at());
            for (LedgerState st : LedgerState.values()) {
                out.printf("  %-10s %d%n", st.dbValue(), s.count(st));
            }
            out.printf("  due now    %d%n", s.dueNow());
            out.printf("  next due   %s%n", s.nextEligibleAt() == null ? "-" : s.nextEligibleAt());
            out.println("dead letters by reason");
            for (DeadLetterReason r : DeadLetterReason.values()) {
                out.printf("  %-20s %d%n", r.dbValue(), s.deadLettersByReason().get(r));
            }
            out.println("destinations");
            for (DestinationState d : destinations) {
                out.printf("  %-20s %-8s %s  %.3g/s burst %d%s%s%n", d.destination().name(),
                        d.enabled() ? "enabled" : "DISABLED", d.destination().url(),
                        d.destination().rate().perSecond(), d.destination().rate().burst(),
                        d.destination().idempotent() ? "" : "  (not idempotent: ambiguous outcomes go to review)",
                        d.enabled() ? "" : "  (" + d.disabledReason() + ")");
            }
            return 0;
        });
    }
}
