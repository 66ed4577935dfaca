package dev.sluice.client.internal.pacing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class InMemoryTokenBucketTest {

    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void waitCountsThePartiallyRefilledTokenR13() {
        InMemoryTokenBucket b = new InMemoryTokenBucket(1, 1, 0);
        assertThat(b.tryAcquire(1, 0)).isZero();
        assertThat(b.tryAcquire(1, 200 * MS)).isEqualTo(800 * MS); // not a full second
    }

    @Test
    void costAboveCapacityFailsAtOnceInsteadOfBlockingForeverR14() {
        InMemoryTokenBucket b = new InMemoryTokenBucket(10, 300, 0);
        assertThatThrownBy(() -> b.tryAcquire(301, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds the bucket capacity");
        assertThat(b.available(0)).as("state untouched").isEqualTo(300.0);
        assertThat(b.tryAcquire(300, 0)).as("cost == capacity on a full bucket").isZero();
    }

    @Test
    void zeroBurstOrZeroRateIsRejectedAtBuildR14() {
        assertThatThrownBy(() -> new InMemoryTokenBucket(1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new InMemoryTokenBucket(0, 10, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStaleReadingMintsNoPhantomTokensR15() {
        // R15b: fill rate 100/s; spend at t+10 s; a stale t+9 s must not rewind "last"
        InMemoryTokenBucket b = new InMemoryTokenBucket(100, 1_000_000, 0);
        b.clamp(0, 10 * SECOND);
        assertThat(b.tryAcquire(1, 9 * SECOND)).isPositive(); // stale: refills nothing
        assertThat(b.available(11 * SECOND)).isCloseTo(100.0, within(1e-6)); // 1 s of refill, not 2
    }

    @Test
    void monotonicClockNearLongMaxRefillsByElapsedTimeR15() {
        long start = Long.MAX_VALUE - SECOND;
        InMemoryTokenBucket b = new InMemoryTokenBucket(1, 10, start);
        for (int i = 0; i < 3; i++) {
            assertThat(b.tryAcquire(1, start)).isZero();
        }
        assertThat(b.available(start)).isCloseTo(7.0, within(1e-9));
        assertThat(b.available(start + 2 * SECOND)).isCloseTo(9.0, within(1e-9)); // 2 s across the wrap
    }

    @Test
    void drainAndPauseRefillsNothingUntilThePauseEnds() {
        InMemoryTokenBucket b = new InMemoryTokenBucket(10, 10, 0);
        b.drainAndPause(5 * SECOND, 0);
        assertThat(b.tryAcquire(1, SECOND)).isEqualTo(4 * SECOND + 100 * MS);
        assertThat(b.available(5 * SECOND)).isZero();
        assertThat(b.available(5 * SECOND + 500 * MS)).isCloseTo(5.0, within(1e-9));
    }

    @Test
    void aShorterPauseNeverShortensALongerOne() {
        InMemoryTokenBucket b = new InMemoryTokenBucket(10, 10, 0);
        b.drainAndPause(10 * SECOND, 0);
        b.drainAndPause(2 * SECOND, SECOND);
        assertThat(b.tryAcquire(1, 3 * SECOND)).isEqualTo(7 * SECOND + 100 * MS);
    }

    @Test
    void anUnlimitedBucketGrantsEverything() {
        InMemoryTokenBucket b = InMemoryTokenBucket.unlimited(0);
        for (int i = 0; i < 10_000; i++) {
            assertThat(b.tryAcquire(1, 0)).isZero();
        }
    }
}
