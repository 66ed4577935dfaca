package dev.sluice.examples.demo.report;

import dev.sluice.examples.demo.fleet.CallTotals;
import dev.sluice.examples.demo.fleet.ClientKind;
import dev.sluice.examples.demo.series.SecondCounts;
import dev.sluice.examples.demo.series.Series;
import dev.sluice.examples.shiplane.ShiplaneStats;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything the report says about one client's run of the fleet. Immutable.
 *
 * @param client which client the fleet used
 * @param startedAt when the fleet started (UTC wall clock)
 * @param plannedSeconds the run length asked for
 * @param interrupted whether the run was stopped early (Ctrl-C)
 * @param blip the blip window in seconds since the start, if there was one
 * @param seconds the per-second counts of the seconds that ran
 * @param stopping what happened on the wire after the last of those seconds, while the fleet
 *     stopped (calls in progress finishing their retries), as one row; empty when nothing did
 * @param calls how the fleet's calls ended
 * @param upstream Shiplane's own counters at the end
 * @param limitPerSecond the fleet's limit: the sum of its keys' sustained burst rates, units/s
 * @param escalated requests the edge answered as part of a retry loop (SPEC §3.12)
 * @param notes lines on what the edge saw in this run, in order
 */
public record RunReport(
        ClientKind client,
        Instant startedAt,
        int plannedSeconds,
        boolean interrupted,
        Optional<Blip> blip,
        List<SecondCounts> seconds,
        Optional<SecondCounts> stopping,
        CallTotals calls,
        ShiplaneStats upstream,
        double limitPerSecond,
        long escalated,
        List<String> notes) {

    /** The blip window: Shiplane answered 503 (or slowly) from {@code fromSecond} to {@code toSecond}. */
    public record Blip(double fromSecond, double toSecond) {
    }

    public RunReport {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(blip, "blip");
        seconds = List.copyOf(seconds);
        Objects.requireNonNull(stopping, "stopping");
        Objects.requireNonNull(calls, "calls");
        Objects.requireNonNull(upstream, "upstream");
        notes = List.copyOf(notes);
    }

    /** Whether the fleet used the Sluice SDK (its columns are shown). */
    public boolean sdk() {
        return client == ClientKind.SDK;
    }

    /** Each series summed over the run, the stopping row included (everything that hit the wire). */
    public Map<Series, Long> totals() {
        Map<Series, Long> t = new EnumMap<>(Series.class);
        for (Series s : Series.values()) {
            t.put(s, seconds.stream().mapToLong(c -> c.get(s)).sum() + stopping.map(c -> c.get(s)).orElse(0L));
        }
        return t;
    }

    /** The largest per-second value of {@code series}. */
    public long peak(Series series) {
        return seconds.stream().mapToLong(c -> c.get(series)).max().orElse(0);
    }

    /** Whether second {@code s} overlaps the blip. */
    public boolean inBlip(int s) {
        return blip.isPresent() && s + 1 > blip.get().fromSecond() && s < blip.get().toSecond();
    }
}
