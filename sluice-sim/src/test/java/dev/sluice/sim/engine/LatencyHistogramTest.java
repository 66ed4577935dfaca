package dev.sluice.sim.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void bucketsAreContiguousAndNeverWiderThanAFiveHundredTwelfthOfTheirValue() {
        int last = -1;
        for (long v = 0; v < 5_000_000; v++) {
            int i = LatencyHistogram.index(v);
            assertThat(i).isBetween(last, last + 1);
            last = i;
        }
        assertThat(LatencyHistogram.index(Long.MAX_VALUE)).isEqualTo(LatencyHistogram.BUCKETS - 1);
        for (long v : new long[] {1_024, 70_000_000L, 3_170_000_000L, 600_000_000_000L}) {
            assertThat(LatencyHistogram.middle(LatencyHistogram.index(v))).isCloseTo(v, within(v / 1024.0 + 1));
        }
    }

    @Test
    void percentilesMatchTheExactNearestRankWithinOneThousandthAndTheMeanIsExact() {
        SplittableRandom r = new SplittableRandom(5);
        long[] all = new long[200_000];
        LatencyHistogram h = new LatencyHistogram();
        double sum = 0;
        for (int i = 0; i < all.length; i++) {
            all[i] = 20_000_000L + (long) (-Math.log(1 - r.nextDouble()) * 500_000_000L); // 20 ms + Exp(500 ms)
            h.add(all[i]);
            sum += all[i];
        }
        Arrays.sort(all);
        for (double p : new double[] {0.5, 0.9, 0.99, 0.999}) {
            long exact = all[(int) Math.ceil(p * all.length) - 1];
            assertThat(h.percentile(p)).as("p%s", p).isCloseTo(exact, within(exact / 1000.0));
        }
        assertThat(h.count()).isEqualTo(all.length);
        assertThat(h.mean()).isCloseTo(sum / all.length, within(1e-3));
    }

    @Test
    void emptyIsNanAndClearForgetsEverything() {
        LatencyHistogram h = new LatencyHistogram();
        assertThat(h.mean()).isNaN();
        assertThat(h.percentile(0.99)).isNaN();
        h.add(70_000_000L);
        assertThat(h.percentile(0.99)).isCloseTo(70_000_000L, within(70_000.0));
        h.clear();
        assertThat(h.count()).isZero();
        assertThat(h.percentile(0.5)).isNaN();
    }
}
