package dev.sluice.client.internal.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.spi.Scheduler;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WakeTimerTest {

    /** What was scheduled, with its delay, and whether it was cancelled; run by hand. */
    static final class Recorded implements Scheduler {
        record Task(Runnable action, Duration delay, boolean[] cancelled) {
        }

        final List<Task> tasks = new ArrayList<>();

        @Override
        public Cancellable schedule(Runnable task, Duration delay) {
            boolean[] cancelled = {false};
            tasks.add(new Task(task, delay, cancelled));
            return () -> cancelled[0] = true;
        }

        List<Task> live() {
            return tasks.stream().filter(t -> !t.cancelled()[0]).toList();
        }
    }

    private final ManualTimeSource time = new ManualTimeSource(java.time.Instant.EPOCH, 1_000_000_000L);
    private final Recorded scheduler = new Recorded();
    private final WakeTimer timer = new WakeTimer(scheduler, time);
    private final AtomicInteger polls = new AtomicInteger();

    @Test
    void aLaterWakeUpWhileAnEarlierIsPendingIsDropped() {
        timer.wakeAt(time.nanoTime() + 100_000_000L, polls::incrementAndGet);
        timer.wakeAt(time.nanoTime() + 500_000_000L, polls::incrementAndGet);

        assertThat(scheduler.tasks).hasSize(1);
        assertThat(scheduler.tasks.get(0).delay()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void anEarlierWakeUpReplacesThePendingOne() {
        timer.wakeAt(time.nanoTime() + 500_000_000L, polls::incrementAndGet);
        timer.wakeAt(time.nanoTime() + 100_000_000L, polls::incrementAndGet);

        assertThat(scheduler.live()).extracting(Recorded.Task::delay).containsExactly(Duration.ofMillis(100));
    }

    @Test
    void aTimeAlreadyPassedWakesAtOnceAndAfterItRunsALaterTimeIsScheduledAgain() {
        timer.wakeAt(time.nanoTime() - 5, polls::incrementAndGet);
        assertThat(scheduler.tasks.get(0).delay()).isEqualTo(Duration.ZERO);

        scheduler.tasks.get(0).action().run();
        timer.wakeAt(time.nanoTime() + 200_000_000L, polls::incrementAndGet);

        assertThat(polls).hasValue(1);
        assertThat(scheduler.tasks).extracting(Recorded.Task::delay)
                .containsExactly(Duration.ZERO, Duration.ofMillis(200));
    }

    @Test
    void cancelCancelsThePendingWakeUp() {
        timer.wakeAt(time.nanoTime() + 100_000_000L, polls::incrementAndGet);
        timer.cancel();

        assertThat(scheduler.live()).isEmpty();
    }
}
