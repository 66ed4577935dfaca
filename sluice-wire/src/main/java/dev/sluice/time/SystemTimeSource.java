package dev.sluice.time;

import java.time.Clock;
import java.time.Instant;

/** {@link TimeSource#system()}: the only place Sluice reads the JVM's clocks. */
enum SystemTimeSource implements TimeSource {
    INSTANCE;

    private static final Clock UTC = Clock.systemUTC();

    /** The last wall reading, published whole (final fields): a benign race between threads. */
    private static volatile SecondAnchor anchor = new SecondAnchor(0, 0, 0);

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public Instant now() {
        return UTC.instant();
    }

    /** {@code System.currentTimeMillis()}, an intrinsic: no {@link Instant} and no native call. */
    @Override
    public long epochSecond() {
        return Math.floorDiv(System.currentTimeMillis(), 1000L);
    }

    /**
     * The cached second while {@code nanoTime} is before the boundary predicted from the last wall
     * reading; otherwise reads {@code System.currentTimeMillis()} and predicts the next boundary.
     */
    @Override
    public long epochSecond(long nanoTime) {
        SecondAnchor a = anchor;
        long sinceRead = nanoTime - a.readAtNanos;
        if (sinceRead >= 0 && sinceRead < a.validForNanos) {
            return a.epochSecond;
        }
        long millis = System.currentTimeMillis();
        long second = Math.floorDiv(millis, 1000L);
        // anchored at nanoTime, taken before the wall reading; the reading is truncated to the
        // millisecond (the true time may be up to 1 ms later), and 1 ms more covers a slewing clock
        // running up to 1000 ppm fast: so the anchor ends before the true boundary
        long valid = (998 - Math.floorMod(millis, 1000L)) * 1_000_000L;
        anchor = new SecondAnchor(second, nanoTime, valid);
        return second;
    }

    /** {@code epochSecond} holds from {@code readAtNanos} for {@code validForNanos} monotonic nanoseconds. */
    private record SecondAnchor(long epochSecond, long readAtNanos, long validForNanos) {}
}
