package dev.sluice.examples.demo.series;

import dev.sluice.time.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts the demo's {@link Series} per second of a run, from many threads at once, without locks.
 *
 * <p>An attempt is counted in two steps so that offered and outcomes land in the same second:
 * {@link #attemptSent()} counts it as offered and returns its second, and
 * {@link #attemptAnswered(int, Series)} later counts its outcome in that second. Events outside the
 * recorded range (before {@link #start()} or past the capacity) are not counted, in both steps
 * alike. Thread-safe.
 */
public final class SeriesRecorder {

    /** The second handed out for an attempt outside the recorded range. */
    public static final int OUT_OF_RANGE = -1;

    private static final int WIDTH = Series.values().length;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final TimeSource time;
    private final int capacitySeconds;
    private final AtomicLongArray counts;
    private volatile long startNanos;
    private volatile boolean started;

    /**
     * @param time the clock that places events in seconds
     * @param capacitySeconds how many seconds to record (at least 1)
     */
    public SeriesRecorder(TimeSource time, int capacitySeconds) {
        this.time = Objects.requireNonNull(time, "time");
        if (capacitySeconds < 1) {
            throw new IllegalArgumentException("capacitySeconds must be >= 1: " + capacitySeconds);
        }
        this.capacitySeconds = capacitySeconds;
        this.counts = new AtomicLongArray(capacitySeconds * WIDTH);
    }

    /** Second 0 starts now. */
    public void start() {
        startNanos = time.nanoTime();
        started = true;
    }

    /** The monotonic reading at which second 0 started. */
    public long startNanos() {
        return startNanos;
    }

    /** How many seconds this recorder can hold. */
    public int capacitySeconds() {
        return capacitySeconds;
    }

    /** The second now falls in, or {@link #OUT_OF_RANGE} before the start or past the capacity. */
    public int secondNow() {
        if (!started) {
            return OUT_OF_RANGE;
        }
        long s = (time.nanoTime() - startNanos) / NANOS_PER_SECOND;
        return s >= 0 && s < capacitySeconds ? (int) s : OUT_OF_RANGE;
    }

    /** Counts one attempt as offered now; returns the second to pass to {@link #attemptAnswered}. */
    public int attemptSent() {
        int s = secondNow();
        if (s != OUT_OF_RANGE) {
            counts.incrementAndGet(s * WIDTH + Series.OFFERED.ordinal());
        }
        return s;
    }

    /**
     * Counts the outcome of an attempt sent in {@code second}.
     *
     * @throws IllegalArgumentException if {@code outcome} is not an attempt outcome
     */
    public void attemptAnswered(int second, Series outcome) {
        if (!outcome.isOutcome()) {
            throw new IllegalArgumentException("not an attempt outcome: " + outcome);
        }
        if (second != OUT_OF_RANGE) {
            counts.incrementAndGet(second * WIDTH + outcome.ordinal());
        }
    }

    /**
     * Counts one event of {@code series} now.
     *
     * @throws IllegalArgumentException for {@link Series#OFFERED} and the outcomes, which are
     *     counted per attempt
     */
    public void event(Series series) {
        if (series == Series.OFFERED || series.isOutcome()) {
            throw new IllegalArgumentException(series + " is counted per attempt");
        }
        int s = secondNow();
        if (s != OUT_OF_RANGE) {
            counts.incrementAndGet(s * WIDTH + series.ordinal());
        }
    }

    /** Counts one call as made now ({@link Series#CALLS}); returns its second for {@link #eventAt}. */
    public int callStarted() {
        int s = secondNow();
        if (s != OUT_OF_RANGE) {
            counts.incrementAndGet(s * WIDTH + Series.CALLS.ordinal());
        }
        return s;
    }

    /**
     * Counts one event of {@code series} in {@code second} (how a call made then ended); nothing
     * for {@link #OUT_OF_RANGE}.
     *
     * @throws IllegalArgumentException for {@link Series#OFFERED} and the outcomes
     */
    public void eventAt(int second, Series series) {
        if (series == Series.OFFERED || series.isOutcome()) {
            throw new IllegalArgumentException(series + " is counted per attempt");
        }
        if (second != OUT_OF_RANGE) {
            counts.incrementAndGet(second * WIDTH + series.ordinal());
        }
    }

    /** The counts of {@code second} as they are now. */
    public SecondCounts second(int second) {
        Objects.checkIndex(second, capacitySeconds);
        long[] v = new long[WIDTH];
        for (int i = 0; i < WIDTH; i++) {
            v[i] = counts.get(second * WIDTH + i);
        }
        return new SecondCounts(second, v);
    }

    /**
     * Seconds {@code from .. to - 1} added up, as they are now, labelled {@code from} (the
     * attempts and events of a stretch shown as one row).
     */
    public SecondCounts sum(int from, int to) {
        long[] v = new long[WIDTH];
        for (int s = Math.max(0, from); s < Math.min(to, capacitySeconds); s++) {
            for (int i = 0; i < WIDTH; i++) {
                v[i] += counts.get(s * WIDTH + i);
            }
        }
        return new SecondCounts(from, v);
    }

    /** Seconds {@code 0 .. seconds - 1} as they are now. */
    public List<SecondCounts> seconds(int seconds) {
        List<SecondCounts> list = new ArrayList<>(seconds);
        for (int s = 0; s < Math.min(seconds, capacitySeconds); s++) {
            list.add(second(s));
        }
        return list;
    }
}
