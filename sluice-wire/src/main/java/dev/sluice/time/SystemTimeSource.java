package dev.sluice.time;

import java.time.Clock;
import java.time.Instant;

/** {@link TimeSource#system()}: the only place Sluice reads the JVM's clocks. */
enum SystemTimeSource implements TimeSource {
    INSTANCE;

    private static final Clock UTC = Clock.systemUTC();

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
}
