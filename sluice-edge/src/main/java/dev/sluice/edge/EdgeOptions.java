package dev.sluice.edge;

import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.edge.keys.KeySource;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.softlimit.LoggingQuotaWarningSink;
import dev.sluice.edge.softlimit.QuotaWarningSink;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import io.micrometer.core.instrument.binder.MeterBinder;
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
 * @param meterBinders meters of the parts built outside this module, bound to the edge's registry at start
 *     (SPEC §3.13): e.g. the Redis store's fallback decisions and up/down state, which the {@code sluice}
 *     command passes in, since this module does not depend on Redis
 * @param keySource where bearer tokens the file's {@code keys} do not list are looked up (a key store's
 *     cache, e.g. {@code sluice-keys}'s); empty: the file's keys only. Closed by {@link EdgeServer#close()}
 *     (its threads, connections and change feed end with the edge), not by a start that fails.
 * @param keyAdministration the key store's write side, served as the admin API ({@code /admin/v1/keys});
 *     empty: that API answers 404
 */
public record EdgeOptions(TimeSource time, Optional<LimiterStore> store, QuotaWarningSink quotaWarningSink,
        Optional<PrometheusMeterRegistry> registry, List<EdgeStage> stages, boolean watchConfig,
        Optional<IdempotencyStore> idempotencyStore, List<MeterBinder> meterBinders, Optional<KeySource> keySource,
        Optional<KeyAdministration> keyAdministration) {

    public EdgeOptions {
        Objects.requireNonNull(keySource, "keySource");
        Objects.requireNonNull(keyAdministration, "keyAdministration");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(quotaWarningSink, "quotaWarningSink");
        Objects.requireNonNull(registry, "registry");
        stages = List.copyOf(stages);
        Objects.requireNonNull(idempotencyStore, "idempotencyStore");
        meterBinders = List.copyOf(meterBinders);
    }

    /** Looks up bearer tokens the file does not list in {@code source}, closed with the edge. */
    public EdgeOptions withKeySource(KeySource source) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watchConfig, idempotencyStore,
                meterBinders, Optional.of(source), keyAdministration);
    }

    /** Serves {@code administration} as the admin API ({@code /admin/v1/keys}) on the admin port. */
    public EdgeOptions withKeyAdministration(KeyAdministration administration) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watchConfig, idempotencyStore,
                meterBinders, keySource, Optional.of(administration));
    }

    /** Binds {@code binders} to the edge's registry at start (served at {@code GET /metrics}). */
    public EdgeOptions withMeterBinders(List<MeterBinder> binders) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watchConfig, idempotencyStore,
                binders, keySource, keyAdministration);
    }

    /** Uses {@code newStore} for idempotency records (not closed by the edge). */
    public EdgeOptions withIdempotencyStore(IdempotencyStore newStore) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watchConfig,
                Optional.of(newStore), meterBinders, keySource, keyAdministration);
    }

    /** The system clock, an in-memory store, a log sink, a new registry, no stages, no file watching. */
    public static EdgeOptions defaults() {
        return new EdgeOptions(TimeSource.system(), Optional.empty(), new LoggingQuotaWarningSink(), Optional.empty(),
                List.of(), false, Optional.empty(), List.of(), Optional.empty(), Optional.empty());
    }

    public EdgeOptions withTime(TimeSource newTime) {
        return new EdgeOptions(newTime, store, quotaWarningSink, registry, stages, watchConfig,
                idempotencyStore, meterBinders, keySource, keyAdministration);
    }

    /** Uses {@code newStore} (not closed by the edge). */
    public EdgeOptions withStore(LimiterStore newStore) {
        return new EdgeOptions(time, Optional.of(newStore), quotaWarningSink, registry, stages, watchConfig,
                idempotencyStore, meterBinders, keySource, keyAdministration);
    }

    public EdgeOptions withQuotaWarningSink(QuotaWarningSink sink) {
        return new EdgeOptions(time, store, sink, registry, stages, watchConfig, idempotencyStore, meterBinders,
                keySource, keyAdministration);
    }

    public EdgeOptions withRegistry(PrometheusMeterRegistry newRegistry) {
        return new EdgeOptions(time, store, quotaWarningSink, Optional.of(newRegistry), stages, watchConfig,
                idempotencyStore, meterBinders, keySource, keyAdministration);
    }

    public EdgeOptions withStages(List<EdgeStage> newStages) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, newStages, watchConfig,
                idempotencyStore, meterBinders, keySource, keyAdministration);
    }

    /** Reloads on changes of the configuration's files (a WatchService on their folders). */
    public EdgeOptions withWatchConfig(boolean watch) {
        return new EdgeOptions(time, store, quotaWarningSink, registry, stages, watch, idempotencyStore, meterBinders,
                keySource, keyAdministration);
    }
}
