package dev.sluice.cli.deliver;

import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.ReviewResolution;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code sluice deliver review}: deliveries to non-idempotent destinations whose outcome is unknown. */
@Command(name = "review", mixinStandardHelpOptions = true,
        description = {"Lists and resolves deliveries a person must decide.",
            "The destination does not deduplicate (idempotent: false) and an attempt timed out or broke"
                    + " after the request was sent, so a retry could act twice."},
        subcommands = {ReviewCommand.ListReviews.class, ReviewCommand.Resolve.class})
final class ReviewCommand implements Runnable {

    @Mixin
    DeliverOptions options; // -c/--store between 'review' and 'list' or 'resolve'

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "Lists items waiting in review.")
    static final class ListReviews implements Callable<Integer> {
        @Mixin
        DeliverOptions options;

        @Option(names = "--limit", defaultValue = "100", paramLabel = "N",
                description = "How many items to list, oldest first (default ${DEFAULT-VALUE}).")
        int limit;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            return options.onExistingLedger(spec, (delivery, out) -> {
                List<LedgerEntry> items = delivery.reviews(limit);
                if (items.isEmpty()) {
                    out.println("nothing in review");
                    return 0;
                }
                out.printf("%-8s %-27s %-16s %-32s %-16s %8s  %s%n", "id", "since", "destination", "key", "class",
                        "attempts", "last error");
                for (LedgerEntry e : items) {
                    out.printf("%-8d %-27s %-16s %-32s %-16s %8d  %s%n", e.ledgerId(), e.updatedAt(),
                            e.event().destination(), e.event().idempotencyKey(),
                            e.lastClass() == null ? "-" : e.lastClass().dbValue(), e.attempts(),
                            e.lastError() == null ? "" : e.lastError());
                }
                return 0;
            });
        }
    }

    @Command(name = "resolve", mixinStandardHelpOptions = true,
            description = {"Resolves one review item as delivered, retry or dead.",
                "delivered: it did arrive, send nothing; retry: send again now with the same key;"
                        + " dead: dead-letter it as review_abandoned."})
    static final class Resolve implements Callable<Integer> {
        @Mixin
        DeliverOptions options;

        @Parameters(index = "0", paramLabel = "ID", description = "The review id (see review list).")
        long id;

        @Option(names = "--as", required = true, paramLabel = "delivered|retry|dead",
                description = "The decision: ${COMPLETION-CANDIDATES}.", converter = ResolutionConverter.class,
                completionCandidates = Resolutions.class)
        ReviewResolution resolution;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            return options.onExistingLedger(spec, (delivery, out) -> {
                LedgerEntry e = delivery.resolveReview(id, resolution);
                out.printf("resolved %d as %s: key=%s now %s%n", id,
                        resolution.name().toLowerCase(java.util.Locale.ROOT), e.event().idempotencyKey(),
                        e.state().dbValue());
                return 0;
            });
        }
    }

    static final class Resolutions implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return List.of("delivered", "retry", "dead").iterator();
        }
    }

    static final class ResolutionConverter implements picocli.CommandLine.ITypeConverter<ReviewResolution> {
        @Override
        public ReviewResolution convert(String value) {
            try {
                return ReviewResolution.valueOf(value.toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException(
                        "expected delivered, retry or dead; got '" + value + "'");
            }
        }
    }
}
