package dev.sluice.cli.deliver;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.delivery.DeadLetter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice deliver dead-letters}: the newest dead letters. */
@Command(name = "dead-letters", mixinStandardHelpOptions = true,
        description = "Lists dead letters, newest first: id, reason, final class and status, attempts, last error.")
final class DeadLettersCommand implements Callable<Integer> {

    @Mixin
    DeliverOptions options;

    @Option(names = "--limit", defaultValue = "50", paramLabel = "N",
            description = "How many dead letters to list, newest first (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--payloads",
            description = "Also print each redacted payload copy (the first 2000 characters; --json prints it whole).")
    boolean payloads;

    @Option(names = "--json", description = "Print one JSON array instead of the table.")
    boolean json;

    @Spec
    CommandSpec spec;

    /** The most of a payload copy the table prints; {@code --json} prints it whole. */
    static final int PAYLOAD_PRINT_LIMIT = 2_000;

    /** A payload copy cut to {@link #PAYLOAD_PRINT_LIMIT} characters, saying how long it is. */
    static String bounded(String payload) {
        if (payload.length() <= PAYLOAD_PRINT_LIMIT) {
            return payload;
        }
        int bytes = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        int cut = Character.isHighSurrogate(payload.charAt(PAYLOAD_PRINT_LIMIT - 1))
                ? PAYLOAD_PRINT_LIMIT - 1 : PAYLOAD_PRINT_LIMIT;
        return payload.substring(0, cut) + "… (" + bytes + " bytes in all; --json prints the whole copy)";
    }

    @Override
    public Integer call() throws Exception {
        return options.onExistingLedger(spec, (delivery, out) -> {
            List<DeadLetter> list = delivery.deadLetters(limit);
            if (json) {
                ObjectMapper m = new ObjectMapper();
                ArrayNode a = m.createArrayNode();
                for (DeadLetter d : list) {
                    ObjectNode n = a.addObject();
                    n.put("id", d.id());
                    n.put("eventId", d.eventId());
                    n.put("destination", d.destination());
                    n.put("idempotencyKey", d.idempotencyKey());
                    n.put("type", d.eventType());
                    n.put("reason", d.reason().dbValue());
                    n.put("finalClass", d.finalClass() == null ? null : d.finalClass().dbValue());
                    n.put("finalStatus", d.finalStatus());
                    n.put("attempts", d.attempts());
                    n.put("lastError", d.lastError());
                    n.put("deadAt", d.deadAt().toString());
                    n.put("replayCount", d.replayCount());
                    n.put("redactedPayload", d.redactedPayload());
                }
                out.println(m.writerWithDefaultPrettyPrinter().writeValueAsString(a));
                return 0;
            }
            if (list.isEmpty()) {
                out.println("no dead letters");
                return 0;
            }
            out.printf("%-6s %-27s %-16s %-32s %-20s %-18s %8s %7s  %s%n", "id", "dead at", "destination", "key",
                    "reason", "final", "attempts", "replays", "last error");
            for (DeadLetter d : list) {
                String fin = d.finalClass() == null ? "-"
                        : d.finalClass().dbValue() + (d.finalStatus() == null ? "" : " " + d.finalStatus());
                out.printf("%-6d %-27s %-16s %-32s %-20s %-18s %8d %7d  %s%n", d.id(), d.deadAt(), d.destination(),
                        d.idempotencyKey(), d.reason().dbValue(), fin, d.attempts(), d.replayCount(),
                        d.lastError() == null ? "" : d.lastError());
                if (payloads) {
                    out.println("       payload: " + (d.redactedPayload() == null ? "(not kept: not JSON)"
                            : bounded(d.redactedPayload())));
                }
            }
            return 0;
        });
    }
}
