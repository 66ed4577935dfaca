package dev.sluice.examples.demo.series;

import java.util.Arrays;

/**
 * The counts of one second of a run: one value per {@link Series}. Immutable.
 *
 * @param second the second since the fleet started (0 is the first)
 */
public record SecondCounts(int second, long[] values) {

    public SecondCounts {
        if (values.length != Series.values().length) {
            throw new IllegalArgumentException("one value per series: " + values.length);
        }
        values = values.clone();
    }

    /** The count of {@code series} in this second. */
    public long get(Series series) {
        return values[series.ordinal()];
    }

    /** The sum of the attempt outcomes; equals {@link Series#OFFERED} once every attempt is answered. */
    public long outcomes() {
        long sum = 0;
        for (Series s : Series.values()) {
            if (s.isOutcome()) {
                sum += get(s);
            }
        }
        return sum;
    }

    /** Attempts sent in this second and not answered yet. */
    public long unanswered() {
        return get(Series.OFFERED) - outcomes();
    }

    @Override
    public long[] values() {
        return values.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecondCounts c && c.second == second && Arrays.equals(c.values, values);
    }

    @Override
    public int hashCode() {
        return 31 * second + Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("SecondCounts[second=").append(second);
        for (Series s : Series.values()) {
            b.append(", ").append(s.id()).append('=').append(get(s));
        }
        return b.append(']').toString();
    }
}
