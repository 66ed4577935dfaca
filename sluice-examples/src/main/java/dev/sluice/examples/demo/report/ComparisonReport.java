package dev.sluice.examples.demo.report;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the demo's report says: the setup, and one {@link RunReport} per client compared, in the
 * order they ran. Immutable.
 *
 * @param startedAt when the first run started (UTC wall clock)
 * @param setup lines describing what ran (edge, upstream, fleet, sources, log), in order
 * @param runs one per client, in order
 * @param blipSlowShare the share of the blip's answers that stalled instead of a 503
 * @param blipSlowLatency how long a stalled answer took
 */
public record ComparisonReport(Instant startedAt, List<String> setup, List<RunReport> runs, double blipSlowShare,
        Duration blipSlowLatency) {

    public ComparisonReport {
        Objects.requireNonNull(startedAt, "startedAt");
        setup = List.copyOf(setup);
        runs = List.copyOf(runs);
        Objects.requireNonNull(blipSlowLatency, "blipSlowLatency");
    }

    /** The headline figures of each run, in order. */
    public List<Headline> headlines() {
        return runs.stream().map(Headline::of).toList();
    }
}
