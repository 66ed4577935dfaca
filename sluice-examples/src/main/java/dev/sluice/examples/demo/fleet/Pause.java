package dev.sluice.examples.demo.fleet;

import java.time.Duration;

/** How a hand-written retry loop waits between attempts: the thread sleeps; tests record instead. */
@FunctionalInterface
interface Pause {

    /** The calling thread sleeps {@code d}. */
    Pause SLEEP = d -> Thread.sleep(d);

    /** Waits {@code d}. */
    void sleep(Duration d) throws InterruptedException;
}
