package dev.sluice.cli.deliver;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.NewEvent;
import dev.sluice.delivery.config.DeliveryFile;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code sluice deliver enqueue}: writes one event to the outbox. */
@Command(name = "enqueue", mixinStandardHelpOptions = true,
        description = "Writes one event and its ledger row (one transaction). A running worker picks it up.")
final class EnqueueCommand implements Callable<Integer> {

    @Mixin
    DeliverOptions options;

    @Option(names = "--dest", required = true, paramLabel = "NAME", description = "Destination name from the config.")
    String destination;

    @Option(names = "--type", required = true, paramLabel = "TYPE", description = "Event type (e.g. purchase.completed).")
    String type;

    @Option(names = "--key", paramLabel = "KEY",
            description = "Idempotency key, e.g. game-8472:purchase:991 (default: the event id).")
    String key;

    @Option(names = "--id", paramLabel = "ID", description = "Event id (default: generated).")
    String eventId;

    @Option(names = "--payload", required = true, paramLabel = "FILE", description = "Payload file, or - for stdin.")
    String payload;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        return Guard.run(spec.commandLine().getErr(), () -> {
            String body = payload.equals("-")
                    ? new String(System.in.readAllBytes(), StandardCharsets.UTF_8)
                    : Files.readString(Path.of(payload));
            DeliveryFile file = options.load();
            try (JdbcDeliveryStore store = options.open(file);
                    Delivery delivery = DeliverOptions.delivery(file, store, DeliveryListener.NONE)) {
                for (Destination d : file.destinations()) {
                    delivery.registerDestination(d);
                }
                EnqueueResult r = delivery.enqueue(new NewEvent(destination, type, body, key, eventId));
                out.printf("%s ledger=%d key=%s event=%s destination=%s%n",
                        r.outcome().name().toLowerCase(java.util.Locale.ROOT), r.ledgerId(),
                        r.event().idempotencyKey(), r.event().eventId(), r.event().destination());
                return 0;
            }
        });
    }
}
