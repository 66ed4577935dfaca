package dev.sluice.client.spi;

import java.time.Duration;

/**
 * Runs a task later: the only way the transport waits (for a retry's time, the pacer's next token,
 * a penalty's end). The default uses one daemon thread that never blocks; tests pass a scheduler
 * driven by a manual clock, so no test sleeps. Thread-safe.
 */
public interface Scheduler {

    /** A scheduled task that may still be cancelled. */
    interface Cancellable {
        void cancel();
    }

    /**
     * Runs {@code task} once after {@code delay} (not negative). The task must be short and must
     * not block.
     */
    Cancellable schedule(Runnable task, Duration delay);
}
