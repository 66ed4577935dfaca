package dev.sluice.client;

import java.time.Duration;

/** Queue sizing from Little's Law, {@code L = λ · W} (SPEC §5.1). */
public final class LittlesLaw {

    private LittlesLaw() {
    }

    /**
     * How many calls can wait without any of them waiting longer than {@code acceptableWait}, at an
     * admitted throughput of {@code arrivalsPerSecond}: {@code ceil(λ · W)}. 20/s × 5 s = 100.
     *
     * @param arrivalsPerSecond λ, the admitted rate in calls per second; finite, {@code >= 0}
     * @param acceptableWait W, the longest acceptable wait; not negative
     * @return L, saturating at {@link Integer#MAX_VALUE}
     * @throws IllegalArgumentException on a negative or non-finite rate or a negative wait
     */
    public static int queueLength(double arrivalsPerSecond, Duration acceptableWait) {
        if (!(arrivalsPerSecond >= 0) || Double.isInfinite(arrivalsPerSecond)) {
            throw new IllegalArgumentException("arrivalsPerSecond must be finite and >= 0: " + arrivalsPerSecond);
        }
        if (acceptableWait.isNegative()) {
            throw new IllegalArgumentException("acceptableWait must not be negative: " + acceptableWait);
        }
        double seconds = acceptableWait.getSeconds() + acceptableWait.getNano() / 1e9;
        double l = arrivalsPerSecond * seconds;
        // ceil, but a product like 20 * 5.000000001 must not become 101 from float noise
        double rounded = Math.ceil(l - 1e-9);
        return rounded >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(0, rounded);
    }
}
