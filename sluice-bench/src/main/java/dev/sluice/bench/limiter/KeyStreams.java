package dev.sluice.bench.limiter;

import java.util.SplittableRandom;

/** Pre-drawn key index streams, so drawing costs nothing inside the measured call. */
final class KeyStreams {

    private KeyStreams() {}

    /**
     * {@code length} indexes in {@code [0, keys)}: {@code "uniform"}, or {@code "zipf"} with exponent
     * 1.0 (key {@code i} drawn with probability proportional to {@code 1 / (i + 1)}), from {@code seed}.
     */
    static int[] draw(String distribution, int keys, int length, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] out = new int[length];
        if (distribution.equals("uniform")) {
            for (int i = 0; i < length; i++) {
                out[i] = random.nextInt(keys);
            }
            return out;
        }
        if (!distribution.equals("zipf")) {
            throw new IllegalArgumentException("distribution: uniform or zipf, was " + distribution);
        }
        double[] cumulative = new double[keys];
        double sum = 0;
        for (int i = 0; i < keys; i++) {
            sum += 1.0 / (i + 1);
            cumulative[i] = sum;
        }
        for (int i = 0; i < length; i++) {
            double u = random.nextDouble() * sum;
            int lo = 0;
            int hi = keys - 1;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (cumulative[mid] < u) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            out[i] = lo;
        }
        return out;
    }
}
