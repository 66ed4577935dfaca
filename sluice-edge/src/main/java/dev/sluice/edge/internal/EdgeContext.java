package dev.sluice.edge.internal;

import dev.sluice.edge.config.ListenConfig;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.dashboard.Dashboard;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.softlimit.SoftLimitNotifier;
import dev.sluice.time.TimeSource;

/**
 * What every connection handler of one running edge shares. Immutable; its parts are thread-safe.
 *
 * @param decider the decision function
 * @param pool the upstream connections
 * @param metrics the meters
 * @param notifier the soft-limit event sink
 * @param time the clock (decision latency)
 * @param listen the listener's limits (read at start; a reload does not change them)
 * @param dates the {@code Date} field of the edge's own responses (from {@code time})
 * @param dashboard what the admin port's dashboard shows (every decision is counted there too)
 */
public record EdgeContext(EdgeDecider decider, UpstreamPool pool, EdgeMetrics metrics, SoftLimitNotifier notifier,
        TimeSource time, ListenConfig listen, DateField dates, Dashboard dashboard) {

    /** A context with a dashboard of its own (on {@code time}, the metrics' registry, a memory store). */
    public EdgeContext(EdgeDecider decider, UpstreamPool pool, EdgeMetrics metrics, SoftLimitNotifier notifier,
            TimeSource time, ListenConfig listen, DateField dates) {
        this(decider, pool, metrics, notifier, time, listen, dates,
                new Dashboard(time == null ? TimeSource.system() : time, metrics.registry(), StoreConfig.MEMORY));
    }

    /** A context whose {@code Date} field reads {@code time}. */
    public EdgeContext(EdgeDecider decider, UpstreamPool pool, EdgeMetrics metrics, SoftLimitNotifier notifier,
            TimeSource time, ListenConfig listen) {
        this(decider, pool, metrics, notifier, time, listen, new DateField(time));
    }
}
