package dev.sluice.client.internal.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SlidingWindowCounterTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void countsOnlyTheSlotsOfTheWindow() {
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofSeconds(10));
        c.add(0, 1);
        c.add(5 * SECOND, 2);
        assertThat(c.sum(9 * SECOND + SECOND / 2)).isEqualTo(3);
        assertThat(c.sum(10 * SECOND)).isEqualTo(2); // slot 0 left: the window is slots 1..10
        assertThat(c.sum(15 * SECOND)).isEqualTo(0);
    }

    @Test
    void aStaleReadingCountsInTheLatestSlot() {
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofSeconds(10));
        c.add(7 * SECOND, 1);
        c.add(2 * SECOND, 1); // earlier than a reading already seen: slot 7, not 2
        assertThat(c.sum(16 * SECOND)).isEqualTo(2);
        assertThat(c.sum(17 * SECOND)).isEqualTo(0);
    }

    @Test
    void aJumpPastTheWholeWindowForgetsEverything() {
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofSeconds(10));
        for (int s = 0; s < 10; s++) {
            c.add(s * SECOND, 1);
        }
        assertThat(c.sum(9 * SECOND)).isEqualTo(10);
        c.add(100 * SECOND, 4);
        assertThat(c.sum(100 * SECOND)).isEqualTo(4);
    }

    /** The busy slots grow and wrap in the ring; the sum matches a plain count of the last n seconds. */
    @Test
    void matchesABruteForceCountOverARandomStream() {
        int window = 30;
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofSeconds(window));
        SplittableRandom random = new SplittableRandom(7);
        long[] perSecond = new long[5_000];
        long now = 0;
        c.add(now, 1); // the first reading starts slot 0
        perSecond[0] = 1;
        while (true) {
            now += (long) (random.nextDouble() * (random.nextInt(10) == 0 ? 20 : 0.5) * SECOND);
            int second = (int) (now / SECOND);
            if (second >= perSecond.length) {
                break;
            }
            long amount = 1 + random.nextInt(3);
            c.add(now, amount);
            perSecond[second] += amount;
            long expected = 0;
            for (int s = Math.max(0, second - window + 1); s <= second; s++) {
                expected += perSecond[s];
            }
            assertThat(c.sum(now)).as("at %d ns", now).isEqualTo(expected);
        }
    }

    @Test
    void aClockNearTheEndOfTheLongRangeWraps() {
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofSeconds(10));
        long start = Long.MAX_VALUE - 3 * SECOND;
        c.add(start, 1);
        c.add(start + 5 * SECOND, 1); // wrapped past Long.MAX_VALUE
        assertThat(c.sum(start + 9 * SECOND)).isEqualTo(2);
        assertThat(c.sum(start + 10 * SECOND)).isEqualTo(1);
    }
}
