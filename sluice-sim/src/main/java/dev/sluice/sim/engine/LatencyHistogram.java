package dev.sluice.sim.engine;

import java.util.Arrays;

/**
 * Latencies (nanoseconds) counted into log-linear buckets: exact below 1,024 ns, then 512 buckets
 * per power of two, so a bucket is at most 1/512 (0.2 %) of its value wide. Memory is fixed
 * ({@link #BUCKETS} counters, 225 KB) whatever the number of calls, which is what lets a run of
 * millions of calls keep its window-wide p99 without keeping every latency (the idea of
 * HdrHistogram, in its simplest form). The count, sum and so the mean are exact. Not thread-safe.
 */
final class LatencyHistogram {

    private static final int SUB = 512;
    /** Buckets for every non-negative long. */
    static final int BUCKETS = 1024 + 53 * SUB;

    private final long[] counts = new long[BUCKETS];
    private long count;
    private double sum;

    void add(long nanos) {
        long v = Math.max(0, nanos);
        counts[index(v)]++;
        count++;
        sum += v;
    }

    long count() {
        return count;
    }

    /** The exact mean in nanoseconds, {@code NaN} when empty. */
    double mean() {
        return count == 0 ? Double.NaN : sum / count;
    }

    /**
     * The nearest-rank percentile (the value at rank ceil(p·n)), as the middle of its bucket: within
     * 0.1 % of the exact value above 1 µs, exact below. {@code NaN} when empty.
     */
    double percentile(double p) {
        if (count == 0) {
            return Double.NaN;
        }
        long rank = Math.max(1, Math.min(count, (long) Math.ceil(p * count)));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return middle(i);
            }
        }
        throw new IllegalStateException("unreachable");
    }

    void clear() {
        if (count > 0) {
            Arrays.fill(counts, 0);
            count = 0;
            sum = 0;
        }
    }

    static int index(long v) {
        if (v < 1024) {
            return (int) v;
        }
        int msb = 63 - Long.numberOfLeadingZeros(v);
        int shift = msb - 9;
        return 1024 + (shift - 1) * SUB + (int) ((v >>> shift) - SUB);
    }

    static double middle(int index) {
        if (index < 1024) {
            return index;
        }
        int shift = (index - 1024) / SUB + 1;
        long low = ((long) ((index - 1024) % SUB) + SUB) << shift;
        return low + ((1L << shift) - 1) / 2.0;
    }
}
