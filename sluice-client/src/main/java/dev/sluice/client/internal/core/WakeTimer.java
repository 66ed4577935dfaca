package dev.sluice.client.internal.core;

import dev.sluice.client.spi.Scheduler;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The one pending wake-up of a {@link CallLoop}:
 * the core's {@code Dispatch} says when it next wants a poll, and the driver asks this timer to run
 * its poll then. Only the earliest time asked for is kept: a later time while an earlier wake-up is
 * pending is dropped (that wake-up polls, and the poll asks again), an earlier one replaces it.
 * Thread-safe (one lock, held for a few field writes and the scheduler's {@code schedule}).
 */
public final class WakeTimer {

    private final Scheduler scheduler;
    private final TimeSource time;
    private final Object lock = new Object();
    private boolean pending;
    private long atNanos;
    private Scheduler.@Nullable Cancellable task;

    /**
     * @param scheduler where the wake-up runs
     * @param time the monotonic clock the core's times are read on
     */
    public WakeTimer(Scheduler scheduler, TimeSource time) {
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.time = Objects.requireNonNull(time, "time");
    }

    /**
     * Runs {@code poll} at {@code wakeAtNanos} (a {@link TimeSource#nanoTime()} value; at once when it
     * has passed), unless a wake-up at or before it is already pending.
     */
    public void wakeAt(long wakeAtNanos, Runnable poll) {
        synchronized (lock) {
            if (pending && atNanos - wakeAtNanos <= 0) {
                return; // an earlier wake-up will poll again anyway
            }
            if (task != null) {
                task.cancel();
            }
            pending = true;
            atNanos = wakeAtNanos;
            long delay = Math.max(0, wakeAtNanos - time.nanoTime());
            task = scheduler.schedule(() -> {
                synchronized (lock) {
                    if (pending && atNanos == wakeAtNanos) {
                        pending = false;
                    }
                }
                poll.run();
            }, Duration.ofNanos(delay));
        }
    }

    /** Cancels the pending wake-up, if any (the driver is closing). */
    public void cancel() {
        synchronized (lock) {
            if (task != null) {
                task.cancel();
            }
        }
    }
}
