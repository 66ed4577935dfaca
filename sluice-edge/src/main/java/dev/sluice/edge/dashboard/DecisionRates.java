package dev.sluice.edge.dashboard;

import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.time.TimeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Decisions per plan and route, counted in one-second buckets on the edge's monotonic clock, and read
 * as per-second rates over the last {@code window} complete seconds (the second in progress is left
 * out, so a rate does not dip at the start of every second) plus totals since the edge started.
 *
 * <p>Every decision falls in one {@link Column}: what the client got. A dry-run denial was forwarded,
 * so it is {@link Column#ADMITTED}; a store that could not decide answers 503 even on a dry-run route.
 *
 * <p>Memory: one series per (plan, route) pair seen, each {@code (window + 1) × 5} longs. Plans and
 * route ids come from the configuration (plus {@code none} and {@code anonymous}), never from traffic,
 * so the count is bounded by the configurations the edge has run. Thread-safe: a series is updated
 * under its own lock, held for a few array writes.
 */
public final class DecisionRates {

    /** What the client got, as the dashboard's columns. */
    public enum Column {
        /** Forwarded to the upstream (allowed, or a denial only counted on a dry-run route). */
        ADMITTED("admitted"),
        /** 429: a burst or quota denial, or the retry-loop escalation. */
        TOO_MANY_REQUESTS("status_429"),
        /** 503 because the limiter store (or the key store) could not decide (SPEC §3.14). */
        UNAVAILABLE("status_503"),
        /** 503 from the shedder, or dropped past its client deadline (SPEC §3.9). */
        SHED("shed"),
        /** Everything else the edge answered itself: 401, 400, 409, replays, usage reports. */
        OTHER("other");

        private final String label;

        Column(String label) {
            this.label = label;
        }

        /** The JSON field name: {@code admitted}, {@code status_429}, ... */
        public String label() {
            return label;
        }

        /** The column {@code record} counts into. */
        public static Column of(DecisionRecord record) {
            DecisionOutcome outcome = record.outcome();
            if (outcome == DecisionOutcome.UNAVAILABLE) {
                return UNAVAILABLE;
            }
            if (record.dryRun()) {
                return ADMITTED;
            }
            return switch (outcome) {
                case ALLOWED -> ADMITTED;
                case RATE_LIMITED, QUOTA_EXHAUSTED, ESCALATED -> TOO_MANY_REQUESTS;
                case SHED, DEADLINE_EXCEEDED -> SHED;
                default -> OTHER;
            };
        }
    }

    private static final int COLUMNS = Column.values().length;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final TimeSource time;
    private final int windowSeconds;
    /** plan → route → series: looked up without allocating, once per decision */
    private final ConcurrentHashMap<String, ConcurrentHashMap<String, Series>> series = new ConcurrentHashMap<>();

    /**
     * @param time the clock ({@link TimeSource#nanoTime()} buckets the counts)
     * @param windowSeconds the seconds a rate is averaged over, 1..300
     * @throws IllegalArgumentException if {@code windowSeconds} is out of range
     */
    public DecisionRates(TimeSource time, int windowSeconds) {
        this.time = Objects.requireNonNull(time, "time");
        if (windowSeconds < 1 || windowSeconds > 300) {
            throw new IllegalArgumentException("windowSeconds: 1..300, was " + windowSeconds);
        }
        this.windowSeconds = windowSeconds;
    }

    /** The seconds a rate is averaged over. */
    public int windowSeconds() {
        return windowSeconds;
    }

    /** Counts one decision now. */
    public void record(DecisionRecord record) {
        ConcurrentHashMap<String, Series> byRoute = series.get(record.keyClass());
        if (byRoute == null) {
            byRoute = series.computeIfAbsent(record.keyClass(), k -> new ConcurrentHashMap<>());
        }
        Series s = byRoute.get(record.route());
        if (s == null) {
            s = byRoute.computeIfAbsent(record.route(),
                    r -> new Series(new SeriesKey(record.keyClass(), r), windowSeconds + 1));
        }
        s.add(Column.of(record), second());
    }

    /**
     * The rates and totals of every series, sorted by plan then route.
     *
     * @return one row per (plan, route) seen since the start
     */
    public List<Row> rows() {
        long now = second();
        List<Row> out = new ArrayList<>();
        for (ConcurrentHashMap<String, Series> byRoute : series.values()) {
            for (Series s : byRoute.values()) {
                out.add(s.row(now, windowSeconds));
            }
        }
        out.sort(Comparator.comparing(Row::plan).thenComparing(Row::route));
        return out;
    }

    private long second() {
        return Math.floorDiv(time.nanoTime(), NANOS_PER_SECOND);
    }

    /** One series read at one moment. Immutable. */
    public static final class Row {
        private final String plan;
        private final String route;
        private final double[] perSecond;
        private final long[] totals;

        Row(String plan, String route, double[] perSecond, long[] totals) {
            this.plan = plan;
            this.route = route;
            this.perSecond = perSecond;
            this.totals = totals;
        }

        /** The plan name ({@code none}: no usable key; {@code anonymous}: an anonymous route). */
        public String plan() {
            return plan;
        }

        /** The route id. */
        public String route() {
            return route;
        }

        /** Decisions per second of {@code column}, averaged over the window. */
        public double perSecond(Column column) {
            return perSecond[column.ordinal()];
        }

        /** Decisions of {@code column} since the start. */
        public long total(Column column) {
            return totals[column.ordinal()];
        }
    }

    private record SeriesKey(String plan, String route) {
    }

    /** A ring of one-second buckets; slot {@code s % slots} holds second {@code s} when stamped so. */
    private static final class Series {
        private final SeriesKey key;
        private final long[] stamp;
        private final long[] counts;
        private final long[] totals = new long[COLUMNS];

        Series(SeriesKey key, int slots) {
            this.key = key;
            this.stamp = new long[slots];
            java.util.Arrays.fill(stamp, Long.MIN_VALUE);
            this.counts = new long[slots * COLUMNS];
        }

        synchronized void add(Column column, long second) {
            int slot = (int) Math.floorMod(second, (long) stamp.length);
            if (stamp[slot] != second) {
                stamp[slot] = second;
                java.util.Arrays.fill(counts, slot * COLUMNS, slot * COLUMNS + COLUMNS, 0);
            }
            counts[slot * COLUMNS + column.ordinal()]++;
            totals[column.ordinal()]++;
        }

        synchronized Row row(long now, int window) {
            double[] rates = new double[COLUMNS];
            for (long s = now - window; s < now; s++) {
                int slot = (int) Math.floorMod(s, (long) stamp.length);
                if (stamp[slot] == s) {
                    for (int c = 0; c < COLUMNS; c++) {
                        rates[c] += counts[slot * COLUMNS + c];
                    }
                }
            }
            for (int c = 0; c < COLUMNS; c++) {
                rates[c] /= window;
            }
            return new Row(key.plan(), key.route(), rates, totals.clone());
        }
    }
}
