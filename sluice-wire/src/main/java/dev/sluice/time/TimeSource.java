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

    /**
     * {@link #epochSecond()} at the moment a {@link #nanoTime()} call of this source returned
     * {@code nanoTime}: for a caller that needs both readings and has just taken the monotonic one.
     * The default reads {@link #epochSecond()}, so a {@link ManualTimeSource} answers exactly what it
     * was set to. {@link #system()} reads the wall clock only when {@code nanoTime} has crossed the
     * second boundary it predicted at its last wall reading (2 ms early, for the
     * millisecond reading and a slewing clock); in between
     * it answers that reading's second, so a step of the system clock (NTP, an operator) is seen up
     * to one second late.
     *
     * @param nanoTime a reading of this source's {@link #nanoTime()}, just taken
     * @return whole seconds since 1970-01-01T00:00:00Z, rounded down
     */
    default long epochSecond(long nanoTime) {
        return epochSecond();
    }

    /** The JVM's clocks: {@link System#nanoTime()} and the system UTC clock. */
    static TimeSource system() {
        return SystemTimeSource.INSTANCE;
    }
}
