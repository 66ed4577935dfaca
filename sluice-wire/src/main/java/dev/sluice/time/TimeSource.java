package dev.sluice.time;

import java.time.Instant;

/**
 * The one seam through which time enters Sluice (DESIGN.md, "Seams worth keeping").
 *
 * <p>Two clocks, because they answer different questions:
 * <ul>
 *   <li>{@link #nanoTime()} is monotonic: it never steps when the wall clock is corrected, so
 *       buckets, waits and deadlines use it. Its origin is arbitrary and it may be negative or
 *       wrap; compare two readings only by subtraction ({@code b - a}), never with {@code <}.</li>
 *   <li>{@link #now()} is the UTC wall clock: calendar quota windows (daily at 00:00 UTC),
 *       HTTP dates and RFC 3339 timestamps use it.</li>
 * </ul>
 *
 * <p>Production code takes a {@code TimeSource} argument and defaults to {@link #system()};
 * tests pass a {@link ManualTimeSource}. Nothing in Sluice reads the system clock any other way.
 *
 * <p>Implementations are thread-safe.
 */
public interface TimeSource {

    /** Monotonic nanoseconds from an arbitrary origin; see the class comment for how to compare. */
    long nanoTime();

    /** The current instant on the UTC wall clock. */
    Instant now();

    /**
     * {@link #now()} in whole seconds since 1970-01-01T00:00:00Z, rounded down: what calendar windows
     * need, read without building an {@link Instant} (the system clock reads milliseconds). The default
     * is {@code now().getEpochSecond()}.
     */
    default long epochSecond() {
        return now().getEpochSecond();
    }

    /** The JVM's clocks: {@link System#nanoTime()} and the system UTC clock. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
