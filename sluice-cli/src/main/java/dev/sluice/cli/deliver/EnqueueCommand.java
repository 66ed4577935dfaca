package dev.sluice.cli.deliver;

import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.NewEvent;
import dev.sluice.delivery.config.DeliveryFile;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.spi.DeliveryListener;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
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

    @Option(names = "--type", required = true, paramLabel = "TYPE", description = "Event type, e.g. purchase.completed (picks the max-age).")
    String type;

    @Option(names = "--key", paramLabel = "KEY",
            description = "Idempotency key, e.g. game-8472:purchase:991 (default: the event id).")
    String key;

    @Option(names = "--id", paramLabel = "ID", description = "Event id (default: generated).")
    String eventId;

    @Option(names = "--payload", required = true, paramLabel = "FILE", description = "Payload file (UTF-8; it is sent as is), or - for stdin.")
    String payload;

    @Spec
    CommandSpec spec;

    private static byte[] readPayload(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new Guard.BadInputException(file + ": no such payload file");
        } catch (java.io.IOException e) {
            throw new Guard.BadInputException(file + ": cannot read the payload: " + e.getMessage());
        }
    }

    /**
     * The payload as text: it is sent as UTF-8 (and signed over those bytes), so anything else is
     * refused with the offset of the first bad byte rather than silently replaced.
     */
    static String utf8(byte[] bytes, String name) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length);
        CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) {
            r = decoder.flush(out);
        }
        if (r.isError()) {
            int at = in.position();
            throw new Guard.BadInputException(String.format(Locale.ROOT,
                    "%s: not UTF-8 at byte offset %d (0x%02x); payloads are sent as UTF-8: convert the file"
                            + " (e.g. iconv -f latin1 -t utf-8)", name, at, bytes[at] & 0xff));
        }
        return out.flip().toString();
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        return Guard.run(spec.commandLine().getErr(), () -> {
            String body = payload.equals("-")
                    ? utf8(System.in.readAllBytes(), "stdin")
                    : utf8(readPayload(Path.of(payload)), payload);
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
