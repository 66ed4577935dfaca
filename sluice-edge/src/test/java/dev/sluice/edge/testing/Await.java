package dev.sluice.edge.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits, with a bound, for a condition another thread makes true (tests never sleep). */
public final class Await {

    private Await() {
    }

    /**
     * Returns once {@code condition} holds; fails with {@code what} if it does not within {@code bound}.
     */
    public static void until(BooleanSupplier condition, Duration bound, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + bound + ": " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}
