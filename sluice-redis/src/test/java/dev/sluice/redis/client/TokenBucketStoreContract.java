package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.client.spi.TokenBucketStore;
import org.junit.jupiter.api.Test;

/**
 * What every {@link TokenBucketStore} must do (SPEC §4.6), run against the client's in-memory bucket
 * (the reference) and the Redis-backed one. Times are the caller's monotonic readings, driven by hand.
 * The one allowed difference is resolution: a Redis wait is whole microseconds rounded up, so a wait is
 * checked to be at least the exact one and less than one resolution step more.
 */
abstract class TokenBucketStoreContract {

    static final long MS = 1_000_000L;
    static final long SECOND = 1_000_000_000L;

    /** A bucket refilling at {@code perSecond} with {@code capacity}, full at {@code nowNanos}. */
    abstract TokenBucketStore bucket(double perSecond, double capacity, long nowNanos);

    /** A bucket that knows no limit. */
    abstract TokenBucketStore unlimited(long nowNanos);

    /** The wait resolution in nanoseconds: 1 in memory, 1,000 on Redis. */
    abstract long resolutionNanos();

    void assertWait(long actual, long exactNanos) {
        assertThat(actual).isBetween(exactNanos, exactNanos + resolutionNanos() - 1);
    }

    @Test
    void waitCountsThePartiallyRefilledTokenR13() {
        TokenBucketStore b = bucket(1, 1, 0);
        assertThat(b.tryAcquire(1, 0)).isZero();
        assertWait(b.tryAcquire(1, 200 * MS), 800 * MS); // not a full second
    }

    @Test
    void costAboveCapacityFailsAtOnceInsteadOfWaitingForeverR14() {
        TokenBucketStore b = bucket(10, 300, 0);
        assertThatThrownBy(() -> b.tryAcquire(301, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds the bucket capacity");
        assertThat(b.available(0)).as("state untouched").isEqualTo(300.0);
        assertThat(b.tryAcquire(300, 0)).as("cost == capacity on a full bucket").isZero();
    }

    @Test
    void aZeroRateOrAZeroBurstIsRefusedR14() {
        TokenBucketStore b = bucket(10, 10, 0);
        assertThatThrownBy(() -> b.configure(10, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.configure(0, 10, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.capacity()).isEqualTo(10.0);
    }

    @Test
    void aStaleReadingMintsNoPhantomTokensR15() {
        // R15b: fill rate 100/s; spent at t+10 s; a stale t+9 s must not rewind the last refill
        TokenBucketStore b = bucket(100, 1_000_000, 0);
        b.clamp(0, 10 * SECOND);
        assertThat(b.tryAcquire(1, 9 * SECOND)).isPositive();
        assertThat(b.available(11 * SECOND)).isCloseTo(100.0, within(1e-6)); // 1 s of refill, not 2
    }

    @Test
    void aMonotonicClockNearLongMaxRefillsByElapsedTimeR15() {
        long start = Long.MAX_VALUE - SECOND;
        TokenBucketStore b = bucket(1, 10, start);
        for (int i = 0; i < 3; i++) {
            assertThat(b.tryAcquire(1, start)).isZero();
        }
        assertThat(b.available(start)).isCloseTo(7.0, within(1e-6));
        assertThat(b.available(start + 2 * SECOND)).isCloseTo(9.0, within(1e-6)); // 2 s across the wrap
    }

    @Test
    void refillIsContinuousAndStopsAtTheCapacity() {
        TokenBucketStore b = bucket(10, 10, 0);
        for (int i = 0; i < 10; i++) {
            assertThat(b.tryAcquire(1, 0)).isZero();
        }
        assertThat(b.available(250 * MS)).isCloseTo(2.5, within(1e-6));
        assertThat(b.available(5 * SECOND)).isCloseTo(10.0, within(1e-6));
    }

    @Test
    void theReferenceRunPacesTwoThousandFourHundredCallsAtSixtyPerSecondInAboutFortySeconds() {
        // SPEC §4.6: 2,400 calls paced at 60/s with burst 10 take ≈ 40 s: (2,400 − 10) / 60 = 39.83 s
        TokenBucketStore b = bucket(60, 10, 0);
        long now = 0;
        int granted = 0;
        while (granted < 2_400) {
            long wait = b.tryAcquire(1, now);
            if (wait == 0) {
                granted++;
            } else {
                now += wait;
            }
        }
        assertThat(now).isCloseTo(39_833 * MS, within(5 * MS));
    }

    @Test
    void theCallAfterTheBurstWaitsOneTokenAtTheRate() {
        TokenBucketStore b = bucket(60, 10, 0);
        for (int i = 0; i < 10; i++) {
            assertThat(b.tryAcquire(1, 0)).isZero();
        }
        assertWait(b.tryAcquire(1, 0), 16_666_667L); // ceil(1 s / 60) in ns
    }

    @Test
    void drainAndPauseRefillsNothingUntilThePauseEnds() {
        TokenBucketStore b = bucket(10, 10, 0);
        b.drainAndPause(5 * SECOND, 0);
        assertWait(b.tryAcquire(1, SECOND), 4 * SECOND + 100 * MS);
        assertThat(b.available(5 * SECOND)).isZero();
        assertThat(b.available(5 * SECOND + 500 * MS)).isCloseTo(5.0, within(1e-6));
    }

    @Test
    void aShorterPauseNeverShortensALongerOne() {
        TokenBucketStore b = bucket(10, 10, 0);
        b.drainAndPause(10 * SECOND, 0);
        b.drainAndPause(2 * SECOND, SECOND);
        assertWait(b.tryAcquire(1, 3 * SECOND), 7 * SECOND + 100 * MS);
    }

    @Test
    void aLaterLongerPauseExtendsTheFirst() {
        TokenBucketStore b = bucket(10, 10, 0);
        b.drainAndPause(2 * SECOND, 0);
        b.drainAndPause(4 * SECOND, SECOND);
        assertWait(b.tryAcquire(1, 3 * SECOND), SECOND + 100 * MS);
    }

    @Test
    void aPauseHoldsEvenABucketThatKnowsNoLimit() {
        TokenBucketStore b = unlimited(0);
        b.drainAndPause(2 * SECOND, 0);
        assertThat(b.tryAcquire(1, SECOND)).isEqualTo(SECOND);
        assertThat(b.tryAcquire(1, 2 * SECOND + MS)).isZero();
    }

    @Test
    void aBucketThatKnowsNoLimitGrantsEverything() {
        TokenBucketStore b = unlimited(0);
        for (int i = 0; i < 500; i++) {
            assertThat(b.tryAcquire(1, 0)).isZero();
        }
        assertThat(b.capacity()).isInfinite();
    }

    @Test
    void clampLowersTheTokensAndNeverRaisesThem() {
        TokenBucketStore b = bucket(10, 10, 0);
        b.clamp(3, 0);
        b.clamp(8, 0);
        assertThat(b.available(0)).isEqualTo(3.0);
        for (int i = 0; i < 3; i++) {
            assertThat(b.tryAcquire(1, 0)).isZero();
        }
        assertWait(b.tryAcquire(1, 0), 100 * MS);
    }

    @Test
    void aLowerCapacityDropsTheTokensAboveIt() {
        TokenBucketStore b = bucket(10, 10, 0);
        b.configure(10, 4, 0);
        assertThat(b.capacity()).isEqualTo(4.0);
        assertThat(b.available(0)).isEqualTo(4.0);
        assertThat(b.available(10 * SECOND)).isEqualTo(4.0);
    }

    @Test
    void aNewRateAppliesToTheNextRefill() {
        TokenBucketStore b = bucket(10, 10, 0);
        for (int i = 0; i < 10; i++) {
            assertThat(b.tryAcquire(1, 0)).isZero();
        }
        b.configure(2, 10, 0);
        assertWait(b.tryAcquire(1, 0), 500 * MS);
    }
}
