package dev.sluice.client.internal.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.client.ThrottleConfig;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AdaptiveThrottleTest {

    private static final long SECOND = 1_000_000_000L;
    /** The §4.5 formula as written: these tests check its counts, with small numbers. */
    private static final ThrottleConfig BARE = ThrottleConfig.defaults().withoutSafetyValves();

    /** SPEC §4.5 table, large counts: 10^6 requests at each accept ratio, rounded to two places. */
    @ParameterizedTest(name = "accept ratio {0}: K=2 -> {1}, K=1.1 -> {2}")
    @CsvSource({
        "0.0, 1,    1",
        "0.1, 0.8,  0.89",
        "0.2, 0.6,  0.78",
        "0.3, 0.4,  0.67",
        "0.4, 0.2,  0.56",
        "0.5, 0,    0.45",
        "0.6, 0,    0.34",
        "0.7, 0,    0.23",
        "0.8, 0,    0.12",
        "0.9, 0,    0.01",
        "1.0, 0,    0"
    })
    void reproducesTheSpecTableForKTwoAndKOnePointOne(double acceptRatio, double k2, double k11) {
        long requests = 1_000_000;
        long accepts = Math.round(requests * acceptRatio);
        assertThat(round2(AdaptiveThrottle.dropProbability(requests, accepts, 2.0))).isEqualTo(k2);
        assertThat(round2(AdaptiveThrottle.dropProbability(requests, accepts, 1.1))).isEqualTo(k11);
    }

    @Test
    void thousandRequestsAndThreeHundredAcceptsDropAboutFortyPercent() {
        // SPEC §4.5 worked case: (1,000 − 600) / 1,001
        assertThat(AdaptiveThrottle.dropProbability(1000, 300, 2.0)).isCloseTo(400.0 / 1001, within(1e-12));
        assertThat(AdaptiveThrottle.dropProbability(1000, 300, 2.0)).isCloseTo(0.40, within(0.001));
    }

    @Test
    void r12NumbersHundredAcceptedGiveZeroAndTwentyAcceptedGiveSixtyOverHundredOne() {
        assertThat(AdaptiveThrottle.dropProbability(100, 100, 2.0)).isZero();
        assertThat(AdaptiveThrottle.dropProbability(100, 20, 2.0)).isCloseTo(60.0 / 101, within(1e-12));
        assertThat(AdaptiveThrottle.dropProbability(100, 20, 2.0)).isCloseTo(0.594, within(0.0005));
    }

    @Test
    void countsAreRecordedOnCompletionAndRejectionsAddRequestsOnlyR12() {
        AdaptiveThrottle t = new AdaptiveThrottle(BARE);
        long now = 0;
        for (int i = 0; i < 20; i++) {
            t.recordAnswer(now, true);
        }
        for (int i = 0; i < 80; i++) {
            t.recordAnswer(now, false);
        }
        assertThat(t.requests(now)).isEqualTo(100);
        assertThat(t.accepts(now)).isEqualTo(20);
        assertThat(t.dropProbability(now)).isCloseTo(60.0 / 101, within(1e-12));
    }

    @Test
    void aLocallyDroppedCallCountsAsARequestWithoutAnAcceptR12() {
        AdaptiveThrottle t = new AdaptiveThrottle(BARE);
        for (int i = 0; i < 100; i++) {
            t.recordAnswer(0, false);
        }
        SplittableRandom random = new SplittableRandom(3);
        int drops = 0;
        for (int i = 0; i < 50; i++) {
            if (t.tryDrop(0, random) >= 0) {
                drops++;
            }
        }
        assertThat(drops).isPositive();
        assertThat(t.requests(0)).isEqualTo(100 + drops);
        assertThat(t.accepts(0)).isZero();
    }

    @Test
    void probabilityDecaysToZeroOnceTheWindowHasPassedR12() {
        AdaptiveThrottle t = new AdaptiveThrottle(BARE);
        for (int i = 0; i < 100; i++) {
            t.recordAnswer(0, false);
        }
        assertThat(t.dropProbability(0)).isGreaterThan(0.98);
        assertThat(t.dropProbability(119 * SECOND)).as("still inside 2 minutes").isGreaterThan(0.98);
        assertThat(t.dropProbability(120 * SECOND)).as("window is 2 minutes (SPEC §4.5)").isZero();
    }

    @Test
    void dropsAtTheComputedRateWithSeededRandomness() {
        // a drop adds a request itself, so each trial starts from the same fresh population
        SplittableRandom random = new SplittableRandom(11);
        int dropped = 0;
        int trials = 20_000;
        for (int i = 0; i < trials; i++) {
            AdaptiveThrottle fresh = new AdaptiveThrottle(BARE);
            for (int a = 0; a < 3; a++) {
                fresh.recordAnswer(0, true);
            }
            for (int r = 0; r < 7; r++) {
                fresh.recordAnswer(0, false);
            }
            if (fresh.tryDrop(0, random) >= 0) {
                dropped++;
            }
        }
        // 10 requests, 3 accepts: (10 − 6) / 11 = 0.3636
        assertThat(dropped / (double) trials).isCloseTo(4.0 / 11, within(0.015));
    }

    @Test
    void withTheValvesOffTheInstanceReproducesTheSpecTable() {
        // SPEC §4.5: the table holds with the valves off; 10,000 answers at accept ratio 0.3, K = 2
        AdaptiveThrottle t = new AdaptiveThrottle(BARE);
        for (int i = 0; i < 10_000; i++) {
            t.recordAnswer(0, i % 10 < 3);
        }
        assertThat(round2(t.dropProbability(0))).isEqualTo(0.4);
        for (int i = 0; i < 90_000; i++) {
            t.recordAnswer(0, false);
        }
        assertThat(round2(t.dropProbability(0))).as("accept ratio 0.03").isEqualTo(0.94);
    }

    @Test
    void aFreshClientsOneBurstOfRefusalsDropsNothingBelowTheMinimumRequestRate() {
        // 30 calls × 3 attempts, all refused: 90 requests in 2 minutes is 0.75/s, under the valve's
        // 1/s (Envoy's rps_threshold); the bare formula would say 90/91 = 0.99
        AdaptiveThrottle t = new AdaptiveThrottle(ThrottleConfig.defaults());
        AdaptiveThrottle bare = new AdaptiveThrottle(BARE);
        for (int i = 0; i < 90; i++) {
            t.recordAnswer(0, false);
            bare.recordAnswer(0, false);
        }
        assertThat(t.dropProbability(0)).isZero();
        assertThat(t.tryDrop(0, new SplittableRandom(1))).isNegative();
        assertThat(bare.dropProbability(0)).isCloseTo(90.0 / 91, within(1e-12));
    }

    @Test
    void theDropProbabilityNeverExceedsEightyPercentSoTheClientKeepsProbing() {
        // Envoy's max_rejection_probability default: 1,000 refusals in the window -> 0.8, not 0.999
        AdaptiveThrottle t = new AdaptiveThrottle(ThrottleConfig.defaults());
        for (int i = 0; i < 1000; i++) {
            t.recordAnswer(0, false);
        }
        assertThat(t.dropProbability(0)).isEqualTo(0.8);
        SplittableRandom random = new SplittableRandom(5);
        int sent = 0;
        for (int i = 0; i < 10_000; i++) {
            if (t.tryDrop(0, random) < 0) {
                sent++;
            }
        }
        assertThat(sent / 10_000.0).as("one call in five still goes").isCloseTo(0.2, within(0.015));
    }

    @Test
    void aboveTheMinimumRateTheFormulaGoverns() {
        // 150 requests in the window (1.25/s), 30 accepts: (150 − 60) / 151
        AdaptiveThrottle t = new AdaptiveThrottle(ThrottleConfig.defaults());
        for (int i = 0; i < 150; i++) {
            t.recordAnswer(0, i < 30);
        }
        assertThat(t.dropProbability(0)).isCloseTo(90.0 / 151, within(1e-12));
    }

    @Test
    void disabledThrottleNeverDrops() {
        AdaptiveThrottle t = new AdaptiveThrottle(ThrottleConfig.disabled());
        for (int i = 0; i < 100; i++) {
            t.recordAnswer(0, false);
        }
        assertThat(t.tryDrop(0, new SplittableRandom(1))).isNegative();
    }

    @Test
    void slidingWindowToleratesAClockStartingNearLongMaxR15() {
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofMinutes(1));
        long start = Long.MAX_VALUE - SECOND;
        c.add(start, 1);
        c.add(start + 2 * SECOND, 1); // wraps past Long.MAX_VALUE
        assertThat(c.sum(start + 2 * SECOND)).isEqualTo(2);
        assertThat(c.sum(start + 61 * SECOND)).isEqualTo(1);
        assertThat(c.sum(start + 63 * SECOND)).isZero();
    }

    @Test
    void aStaleReadingNeverRewindsTheWindow() {
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofMinutes(1));
        c.add(100 * SECOND, 1);
        c.add(10 * SECOND, 1); // stale: counted at the latest slot
        assertThat(c.sum(100 * SECOND)).isEqualTo(2);
        assertThat(c.sum(160 * SECOND)).isZero();
    }

    @Test
    void slidingWindowAgreesWithARecountOfEveryEntryOverRandomGapsAndJumps() {
        // reference: keep every (slot, amount) and sum those in [slot - n + 1, slot], slots counted in
        // whole seconds from the first reading; gaps from 0 to two windows, so slots expire one by one,
        // several at once and all at once
        SplittableRandom random = new SplittableRandom(15);
        SlidingWindowCounter c = SlidingWindowCounter.ofSeconds(Duration.ofSeconds(10));
        java.util.List<long[]> entries = new java.util.ArrayList<>();
        long origin = 7 * SECOND / 3;
        long now = origin;
        c.sum(origin);
        for (int i = 0; i < 20_000; i++) {
            int gap = random.nextInt(100);
            now += gap < 70 ? random.nextLong(SECOND / 2) : gap < 95 ? random.nextLong(3 * SECOND) : random.nextLong(20 * SECOND);
            long slot = (now - origin) / SECOND;
            if (random.nextBoolean()) {
                long amount = 1 + random.nextInt(3);
                c.add(now, amount);
                entries.add(new long[] {slot, amount});
            }
            long expected = 0;
            for (long[] e : entries) {
                if (e[0] > slot - 10) {
                    expected += e[1];
                }
            }
            entries.removeIf(e -> e[0] <= slot - 10);
            assertThat(c.sum(now)).as("sum at %d ns", now).isEqualTo(expected);
        }
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
