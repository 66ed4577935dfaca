package dev.sluice.time;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * A {@link TimeSource} that moves only when told to: the fake clock of every Sluice test, and of
 * the simulator and {@code sluice replay}.
 *
 * <p>{@link #advance(Duration)} moves both clocks together, as real time does.
 * {@link #stepWallClock(Duration)} moves only the wall clock (an NTP correction or a VM resume:
 * regression case R15), and {@link #setNanoTime(long)} places the monotonic origin anywhere,
 * including near {@link Long#MAX_VALUE}, to prove that code compares readings by subtraction.
 *
 * <p>Thread-safe: readers see a consistent pair only if they read while nobody advances; tests
 * that advance from several threads should not rely on the pairing.
 */
public final class ManualTimeSource implements TimeSource {

    private volatile long nanos;
    private volatile Instant wall;

    /** Starts at {@code start} on the wall clock and at monotonic reading 0. */
    public ManualTimeSource(Instant start) {
        this(start, 0L);
    }

    /** Starts at {@code start} on the wall clock and at monotonic reading {@code startNanos}. */
    public ManualTimeSource(Instant start, long startNanos) {
        this.wall = Objects.requireNonNull(start, "start");
        this.nanos = startNanos;
    }

    /** A clock at {@code instant} (ISO-8601, e.g. {@code 2026-11-30T18:00:00Z}) and nanos 0. */
    public static ManualTimeSource at(String instant) {
        return new ManualTimeSource(Instant.parse(instant));
    }

    @Override
    public long nanoTime() {
        return nanos;
    }

    @Override
    public Instant now() {
        return wall;
    }

    /**
     * Moves both clocks forward by {@code amount}.
     *
     * @throws IllegalArgumentException if {@code amount} is negative (real time does not run
     *     backwards; use {@link #stepWallClock(Duration)} for a wall-clock correction)
     */
    public synchronized ManualTimeSource advance(Duration amount) {
        if (amount.isNegative()) {
            throw new IllegalArgumentException("amount must not be negative: " + amount);
        }
        nanos += amount.toNanos();
        wall = wall.plus(amount);
        return this;
    }

    /** Moves both clocks forward by {@code millis} milliseconds. */
    public ManualTimeSource advanceMillis(long millis) {
        return advance(Duration.ofMillis(millis));
    }

    /** Steps only the wall clock, forwards or backwards; the monotonic clock does not move. */
    public synchronized ManualTimeSource stepWallClock(Duration step) {
        wall = wall.plus(step);
        return this;
    }

    /** Sets the wall clock to {@code instant} without moving the monotonic clock. */
    public synchronized ManualTimeSource setNow(Instant instant) {
        wall = Objects.requireNonNull(instant, "instant");
        return this;
    }

    /** Sets the monotonic reading without moving the wall clock. */
    public synchronized ManualTimeSource setNanoTime(long nanoTime) {
        nanos = nanoTime;
        return this;
    }

    @Override
    public String toString() {
        return "ManualTimeSource[" + wall + ", nanos=" + nanos + "]";
    }
}
