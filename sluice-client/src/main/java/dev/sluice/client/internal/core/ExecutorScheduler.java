package dev.sluice.client.internal.core;

import dev.sluice.client.spi.Scheduler;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The default {@link Scheduler}: one daemon platform thread that only ever runs short, non-blocking
 * tasks (a poll of the core, starting async exchanges). No thread waits in Sluice: a wait is a task
 * on this timer.
 */
final class ExecutorScheduler implements Scheduler, AutoCloseable {

    private final ScheduledThreadPoolExecutor executor;

    ExecutorScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-scheduler");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
    }

    @Override
    public Cancellable schedule(Runnable task, Duration delay) {
        long nanos = Math.max(0, Math.min(delay.toNanos(), Long.MAX_VALUE / 4));
        ScheduledFuture<?> f = executor.schedule(task, nanos, TimeUnit.NANOSECONDS);
        return () -> f.cancel(false);
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
