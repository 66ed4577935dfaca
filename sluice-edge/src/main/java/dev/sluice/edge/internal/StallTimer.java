package dev.sluice.edge.internal;

import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Calls {@code onStall} once when a watched activity made no progress for a timeout: from {@link #start()},
 * or from the last {@link #progress()}. A deadline that progress does not extend is the same timer without
 * {@code progress()} calls. Progress only writes a timestamp: at most one task is scheduled at a time, and
 * when it runs early (progress happened since) it schedules the rest, so a busy upload costs one clock read
 * per chunk, not a task per chunk.
 *
 * <p>Time is the event loop scheduler's ({@link EventExecutor#ticker()}), the clock of every timeout the
 * edge schedules. Not thread-safe: use it on its executor only.
 */
final class StallTimer {

    private final EventExecutor executor;
    private final long timeoutNanos;
    private final Runnable onStall;
    private boolean running;
    private long lastProgressNanos;
    private ScheduledFuture<?> task;

    StallTimer(EventExecutor executor, Duration timeout, Runnable onStall) {
        this.executor = executor;
        this.timeoutNanos = timeout.toNanos();
        this.onStall = onStall;
    }

    /** Starts watching now (again, if it was running). */
    void start() {
        running = true;
        lastProgressNanos = executor.ticker().nanoTime();
        if (task == null) {
            task = executor.schedule(this::check, timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The activity moved: the timeout counts from now. */
    void progress() {
        if (running) {
            lastProgressNanos = executor.ticker().nanoTime();
        }
    }

    boolean running() {
        return running;
    }

    /** Stops watching; {@code onStall} is not called. */
    void stop() {
        running = false;
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    private void check() {
        task = null;
        if (!running) {
            return;
        }
        long idle = executor.ticker().nanoTime() - lastProgressNanos;
        if (idle >= timeoutNanos) {
            running = false;
            onStall.run();
        } else {
            task = executor.schedule(this::check, timeoutNanos - idle, TimeUnit.NANOSECONDS);
        }
    }
}
