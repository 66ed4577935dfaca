package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TimeSourceTest {

    @Test
    void aManualSourceAnswersTheWallSecondItWasSetToWhateverTheMonotonicReading() {
        ManualTimeSource time = new ManualTimeSource(Instant.parse("2026-12-06T23:59:59.500Z"), 0);
        long nanos = time.nanoTime();
        assertThat(time.epochSecond(nanos)).isEqualTo(Instant.parse("2026-12-06T23:59:59Z").getEpochSecond());
        time.stepWallClock(Duration.ofSeconds(1)); // the wall steps, the monotonic clock does not
        assertThat(time.epochSecond(time.nanoTime())).isEqualTo(Instant.parse("2026-12-07T00:00:00Z").getEpochSecond());
    }

    @Test
    void theSystemSourceAnswersASecondBetweenWallReadingsTakenAroundTheCall() {
        TimeSource time = TimeSource.system();
        for (int i = 0; i < 10_000; i++) {
            long before = Math.floorDiv(System.currentTimeMillis(), 1000L);
            long second = time.epochSecond(time.nanoTime());
            long after = Math.floorDiv(System.currentTimeMillis(), 1000L);
            assertThat(second).isBetween(before, after);
        }
    }

    @Test
    void theSystemSourceReadsTheWallClockForAReadingOutsideItsAnchor() {
        TimeSource time = TimeSource.system();
        time.epochSecond(time.nanoTime()); // anchors now
        long before = Math.floorDiv(System.currentTimeMillis(), 1000L);
        // a reading 10 s before the anchor: not covered, so the wall clock is read again
        long second = time.epochSecond(time.nanoTime() - 10_000_000_000L);
        assertThat(second).isBetween(before, Math.floorDiv(System.currentTimeMillis(), 1000L));
    }
}
