package dev.sluice.delivery.jdbc;

import java.util.random.RandomGenerator;

/** The time steps of the destination bucket's random GCRA traces, shared by its differential tests. */
final class GcraTraceSteps {

    private GcraTraceSteps() {
    }

    /**
     * The next step of a trace's clock, in µs: none (several workers at the same microsecond), back by up to
     * half an interval (a worker whose clock lags, R15), or forward by up to one interval, three intervals or
     * the whole burst.
     */
    static long next(RandomGenerator random, long interval, int burst) {
        return switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> -random.nextLong(1 + interval / 2);
            case 2 -> random.nextLong(1 + interval);
            case 3 -> random.nextLong(1 + 3 * interval);
            default -> random.nextLong(1 + burst * interval);
        };
    }
}
