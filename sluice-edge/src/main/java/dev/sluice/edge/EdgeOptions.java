package dev.sluice.edge;

import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.softlimit.LoggingQuotaWarningSink;
import dev.sluice.edge.softlimit.QuotaWarningSink;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * How a running edge is wired, beyond its configuration file: the clock, the limiter store, the
 * soft-limit sink, the meter registry, extra decision stages, and whether to watch the
 * configuration file. Immutable; start from {@link #defaults()} and replace parts with the
 * {@code with…} methods.
 *
 * @param time the clock of the limiter (when the edge builds its store) and of events; tests pass a
 *     {@code ManualTimeSource}
 * @param store the limiter store; empty: an in-memory store on {@code time}, closed with the edge
 * @param quotaWarningSink where {@code quota.warning} events go (SPEC §3.8); default: a log line
 * @param registry the Prometheus registry served on the admin port; empty: a new one
 * @param stages decision stages run before the limiter, in order (see {@link EdgeStage})
 * @param watchConfig whether to reload when the configuration file (or its key file) changes
 * @param idempotencyStore where idempotency records live (SPEC §3.11); empty: an in-memory store on
 *     {@code time}, closed with the edge
 */
public record EdgeOptions(TimeSource time, Optional<LimiterStore> store, QuotaWarningSink quotaWarningSink,
        Optional<PrometheusMeterRegistry> registry, List<EdgeStage> stages, boolean watchConfig,
        Optional<IdempotencyStore> idempotencyStore) {

    public EdgeOptions {
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(quotaWarningSink, "quotaWarningSink");
        Objects.requireNonNull(registry, "registry");
        stages = List.copyOf(stages);
        Objects.requireNonNull(idempotencyStore, "idempotencyStore");
    }

    /** The options of earlier releases: an in-memory idempotency store. */
    public EdgeOptions(TimeSource time, Optional<LimiterStore> store, QuotaWarningSink quotaWarningSink,
            Optional<PrometheusMeterRegistry> registry, List<EdgeStage> stages, boolean watchConfig) {
        this(time, store, quotaWarningSink, registry, stages, watchConfig, Optional.empty());
    }

    /** Uses {@code newStore} for idempotency records (not closed by the edge). */
    public EdgeOptions withIdempotencyStore(IdempotencyStore newStore) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watchConfig, Optional.of(newStore));
    }

    /** The system clock, an in-memory store, a log sink, a new registry, no stages, no file watching. */
    public static EdgeOptions defaults() {
        return new EdgeOptions(TimeSource.system(), Optional.empty(), new LoggingQuotaWarningSink(), Optional.empty(),
                List.of(), false);
    }

    public EdgeOptions withTime(TimeSource newTime) {
        return new EdgeOptions(newTime, store, quotaWarningSink, registry, stages, watchConfig, idempotencyStore);
    }

    /** Uses {@code newStore} (not closed by the edge). */
    public EdgeOptions withStore(LimiterStore newStore) {
        return new EdgeOptions(time, Optional.of(newStore), quotaWarningSink, registry, stages, watchConfig, idempotencyStore);
    }

    public EdgeOptions withQuotaWarningSink(QuotaWarningSink sink) {
        return new EdgeOptions(time, store, sink, registry, stages, watchConfig, idempotencyStore);
    }

    public EdgeOptions withRegistry(PrometheusMeterRegistry newRegistry) {
        return new EdgeOptions(time, store, quotaWarningSink, Optional.of(newRegistry), stages, watchConfig, idempotencyStore);
    }

    public EdgeOptions withStages(List<EdgeStage> newStages) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, newStages, watchConfig, idempotencyStore);
    }

    /** Reloads on changes of the configuration's files (a WatchService on their folders). */
    public EdgeOptions withWatchConfig(boolean watch) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watch, idempotencyStore);
    }
}
