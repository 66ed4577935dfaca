package dev.sluice.client.http;

import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@link Scheduler} on a {@link ManualTimeSource}: tasks run only when the test moves the clock.
 * {@link #drive} runs a client to completion: while an exchange is on the wire it waits (bounded)
 * for the loopback server; when the client is idle it jumps the clock to the next task. No test
 * sleeps, and a 60 s Retry-After costs no wall time.
 */
final class ManualScheduler implements Scheduler {

    private record Task(long dueNanos, Runnable action, boolean[] cancelled) {
    }

    private final ManualTimeSource time;
    private final List<Task> tasks = new ArrayList<>();
    /** Every delay ever scheduled, for assertions on waits. */
    final List<Duration> delays = new ArrayList<>();

    ManualScheduler(ManualTimeSource time) {
        this.time = time;
    }

    @Override
    public synchronized Cancellable schedule(Runnable action, Duration delay) {
        boolean[] cancelled = {false};
        delays.add(delay);
        tasks.add(new Task(time.nanoTime() + delay.toNanos(), action, cancelled));
        return () -> {
            synchronized (ManualScheduler.this) {
                cancelled[0] = true;
            }
        };
    }

    private synchronized Task next() {
        tasks.removeIf(t -> t.cancelled()[0]);
        return tasks.stream().min((a, b) -> Long.compare(a.dueNanos(), b.dueNanos())).orElse(null);
    }

    private synchronized void remove(Task t) {
        tasks.remove(t);
    }

    /** Runs the client until {@code f} completes; fails after 20 s of wall time (a hang, not a wait). */
    <T> void drive(DefaultSluiceHttpClient client, CompletableFuture<T> f) throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!f.isDone()) {
            if (System.nanoTime() - giveUp > 0) {
                throw new AssertionError("client did not finish; pending tasks " + tasks);
            }
            if (client.busy() > 0) {
                try {
                    f.get(5, TimeUnit.MILLISECONDS); // bounded wait for the loopback exchange
                } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                    // not done yet, or done exceptionally: the loop condition decides
                }
                continue;
            }
            Task t = next();
            if (t == null) {
                try {
                    f.get(5, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                    // as above
                }
                continue;
            }
            remove(t);
            if (t.dueNanos() > time.nanoTime()) {
                time.advance(Duration.ofNanos(t.dueNanos() - time.nanoTime()));
            }
            t.action().run();
        }
    }
}
