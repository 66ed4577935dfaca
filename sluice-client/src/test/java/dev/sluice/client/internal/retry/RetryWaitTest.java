package dev.sluice.client.internal.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.client.RetryConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** SPEC §4.3, checked numerically: bounds and distribution, with seeded randomness. */
class RetryWaitTest {

    private static final int SAMPLES = 100_000;
    private final RetryWait wait = new RetryWait(RetryConfig.defaults());

    @ParameterizedTest(name = "ra = {0} ms gives J = {1} ms")
    @CsvSource({
        "0, 1000",        // J = min(20, max(1, 0)) = 1 s
        "500, 1000",      // J = max(1, 0.5) = 1 s
        "1000, 1000",
        "5000, 5000",     // the §7.2 blip: Retry-After 5 -> U(0, 5)
        "20000, 20000",
        "30000, 20000",   // R11: Retry-After 30 -> J = 20
        "3600000, 20000"
    })
    void jitterSpanIsMinOf20sAndMaxOf1sAndTheHint(long raMillis, long expectedJMillis) {
        assertThat(wait.jitterSpan(Duration.ofMillis(raMillis))).isEqualTo(Duration.ofMillis(expectedJMillis));
    }

    @ParameterizedTest(name = "ra = {0} s")
    @CsvSource({"0", "1", "5", "30"})
    void hintedWaitIsUniformOverRaToRaPlusJ(long raSeconds) {
        Duration ra = Duration.ofSeconds(raSeconds);
        double j = RetryWait.seconds(wait.jitterSpan(ra));
        RandomGenerator random = new SplittableRandom(42);
        int[] bins = new int[10];
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double w = RetryWait.seconds(wait.afterHint(ra, random));
            assertThat(w).isBetween((double) raSeconds, raSeconds + j);
            double u = (w - raSeconds) / j;
            bins[Math.min(9, (int) (u * 10))]++;
            sum += w;
        }
        assertThat(sum / SAMPLES).isCloseTo(raSeconds + j / 2, within(j * 0.01));
        for (int b : bins) {
            // each tenth holds 10 % ± 0.6 % (about 6 standard deviations at n = 100,000)
            assertThat(b / (double) SAMPLES).isCloseTo(0.1, within(0.006));
        }
    }

    @Test
    void retryAfterThirtyWaitsBetweenThirtyAndFiftySecondsForEveryClientR11() {
        RandomGenerator random = new SplittableRandom(7);
        double min = Double.MAX_VALUE;
        double max = 0;
        for (int client = 0; client < 450; client++) {
            double w = RetryWait.seconds(wait.afterHint(Duration.ofSeconds(30), random));
            min = Math.min(min, w);
            max = Math.max(max, w);
        }
        assertThat(min).isGreaterThanOrEqualTo(30.0);
        assertThat(max).isLessThanOrEqualTo(50.0);
        assertThat(max - min).as("spread across the fleet").isGreaterThan(15.0);
    }

    @ParameterizedTest(name = "attempt {0}: ceiling {1} ms")
    @CsvSource({"0, 500", "1, 1000", "2, 2000", "3, 4000", "4, 8000", "5, 16000", "6, 20000", "7, 20000", "62, 20000",
        "1000, 20000", "2147483647, 20000"})
    void fullJitterCeilingIsMinOfCapAndBaseTimesTwoToTheAttempt(int attempt, long ceilingMillis) {
        assertThat(wait.backoffCeiling(attempt)).isEqualTo(Duration.ofMillis(ceilingMillis));
    }

    @ParameterizedTest(name = "attempt {0}")
    @CsvSource({"1", "3", "10"})
    void fullJitterIsUniformOverZeroToCeiling(int attempt) {
        double ceiling = RetryWait.seconds(wait.backoffCeiling(attempt));
        RandomGenerator random = new SplittableRandom(attempt);
        int[] bins = new int[10];
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double w = RetryWait.seconds(wait.fullJitter(attempt, random));
            assertThat(w).isBetween(0.0, ceiling);
            bins[Math.min(9, (int) (w / ceiling * 10))]++;
            sum += w;
        }
        assertThat(sum / SAMPLES).isCloseTo(ceiling / 2, within(ceiling * 0.01));
        for (int b : bins) {
            assertThat(b / (double) SAMPLES).isCloseTo(0.1, within(0.006));
        }
    }

    @Test
    void noAttemptNumberFromOneToAThousandOverflowsOrGoesNegativeR10() {
        RetryConfig config = RetryConfig.builder().backoffBase(Duration.ofSeconds(1)).backoffCap(Duration.ofSeconds(30)).build();
        RetryWait w = new RetryWait(config);
        RandomGenerator random = new SplittableRandom(10);
        for (int attempt = 1; attempt <= 1000; attempt++) {
            for (int i = 0; i < 20; i++) {
                Duration d = w.fullJitter(attempt, random);
                assertThat(d).isBetween(Duration.ZERO, Duration.ofSeconds(30));
            }
        }
    }

    @Test
    void aHugeHintSaturatesInsteadOfOverflowing() {
        Duration huge = Duration.ofSeconds(Long.MAX_VALUE / 2);
        Duration w = wait.afterHint(huge, new SplittableRandom(1));
        assertThat(w).isEqualTo(Duration.ofNanos(Long.MAX_VALUE));
    }

    @Test
    void fleetOfFourHundredFiftyClientsDoesNotRetryInTheSameSlotR11() {
        // R11: 450 clients at the same attempt number, base 1 s, cap 60 s: full jitter spreads them
        RetryWait w = new RetryWait(RetryConfig.builder().backoffBase(Duration.ofSeconds(1))
                .backoffCap(Duration.ofSeconds(60)).build());
        RandomGenerator random = new SplittableRandom(450);
        for (int attempt = 3; attempt <= 6; attempt++) {
            int[] slots = new int[600]; // 100 ms slots over 60 s
            Set<Duration> distinct = new HashSet<>();
            for (int client = 0; client < 450; client++) {
                Duration d = w.fullJitter(attempt, random);
                distinct.add(d);
                slots[(int) Math.min(599, d.toMillis() / 100)]++;
            }
            assertThat(distinct).hasSizeGreaterThan(440);
            int busiest = java.util.Arrays.stream(slots).max().orElseThrow();
            assertThat(busiest / 450.0).as("busiest 100 ms slot at attempt %d", attempt).isLessThan(0.05);
        }
    }

    @Test
    void aJitterThatDoesNotFitIsDrawnWithinWhatIsLeftAndTheHintIsNeverUndercutR03() {
        // Retry-After 3 s, 4 s left: J = 3 s is trimmed to 1 s, uniform over [3 s, 4 s]
        RandomGenerator random = new SplittableRandom(9);
        double sum = 0;
        for (int i = 0; i < SAMPLES; i++) {
            double w = RetryWait.seconds(wait.afterHint(Duration.ofSeconds(3), Duration.ofSeconds(4), random));
            assertThat(w).isBetween(3.0, 4.0);
            sum += w;
        }
        assertThat(sum / SAMPLES).isCloseTo(3.5, within(0.01));
        // a hint at or past what is left comes back whole: the caller fails rather than wait less
        assertThat(wait.afterHint(Duration.ofSeconds(5), Duration.ofSeconds(4), random)).isEqualTo(Duration.ofSeconds(5));
        // room to spare: the same draw as without a limit
        assertThat(wait.afterHint(Duration.ofSeconds(3), Duration.ofSeconds(60), new SplittableRandom(1)))
                .isEqualTo(wait.afterHint(Duration.ofSeconds(3), new SplittableRandom(1)));
    }

    @Test
    void fullJitterIsDrawnWithinWhatIsLeft() {
        RandomGenerator random = new SplittableRandom(10);
        for (int i = 0; i < SAMPLES; i++) {
            assertThat(wait.fullJitter(3, Duration.ofMillis(300), random)).isBetween(Duration.ZERO, Duration.ofMillis(300));
        }
        assertThat(wait.fullJitter(3, Duration.ofMinutes(1), new SplittableRandom(2)))
                .isEqualTo(wait.fullJitter(3, new SplittableRandom(2)));
    }
}
