package dev.sluice.client.internal.admission;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.AdmissionConfig;
import dev.sluice.client.ShedReason;
import dev.sluice.client.internal.admission.AdmissionQueue.Admission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AdmissionQueueTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final AdmissionQueue.Gate<String> OPEN = (item, now) -> 0;

    private long order;

    private Admission<String> submit(AdmissionQueue<String> q, String item, int priority, long now) {
        return q.submit(item, priority, order++, false, 0, now);
    }

    @Test
    void fifoWithinAPriorityAndInteractiveBeforeBackground() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(10, 1));
        submit(q, "b1", 1, 0);
        submit(q, "i1", 0, 0);
        submit(q, "b2", 1, 0);
        submit(q, "i2", 0, 0);
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            order.addAll(q.poll(0, OPEN).started());
            q.release();
        }
        assertThat(order).containsExactly("i1", "i2", "b1", "b2");
    }

    @Test
    void anInteractiveCallEvictsTheNewestBackgroundCallFromAFullQueue() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(3, 1));
        submit(q, "b-old", 1, 0);
        submit(q, "b-new", 1, 0);
        submit(q, "i1", 0, 0);
        Admission<String> a = submit(q, "i2", 0, 0);
        assertThat(a).isEqualTo(new Admission.Admitted<>("b-new"));
        assertThat(q.size()).isEqualTo(3);
        assertThat(q.shedCounts()).containsEntry(ShedReason.EVICTED, 1L);
    }

    @Test
    void aFullQueueShedsABackgroundCallAndAnInteractiveOneWithNothingToEvict() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(2, 1));
        submit(q, "i1", 0, 0);
        submit(q, "i2", 0, 0);
        assertThat(submit(q, "b", 1, 0)).isEqualTo(new Admission.Rejected<>(ShedReason.FULL, Duration.ofSeconds(1)));
        assertThat(submit(q, "i3", 0, 0)).isInstanceOf(Admission.Rejected.class);
        assertThat(q.shedCounts()).containsEntry(ShedReason.FULL, 2L);
    }

    @Test
    void aPassedDeadlineIsShedAtSubmit() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.defaults());
        Admission<String> a = q.submit("late", 0, 0, true, 10 * SECOND, 10 * SECOND);
        assertThat(a).isEqualTo(new Admission.Rejected<>(ShedReason.DEADLINE_AT_SUBMIT, Duration.ZERO));
    }

    @Test
    void anEntryWhoseDeadlinePassesWhileQueuedIsNeverStartedR20() {
        // R20: deadline now+5 s, queueTimeout 60 s, no capacity: expires at 5 s, never dispatched
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(100, 1).withQueueTimeout(Duration.ofSeconds(60)));
        submit(q, "busy", 0, 0);
        assertThat(q.poll(0, OPEN).started()).containsExactly("busy"); // holds the only slot
        q.submit("x", 0, 1, true, 5 * SECOND, 0);
        AdmissionQueue.Poll<String> p = q.poll(0, OPEN);
        assertThat(p.wakeAtNanos()).hasValue(5 * SECOND);
        // enqueuing other entries never extends x's expiry
        q.submit("y", 0, 2, true, 50 * SECOND, 2 * SECOND);
        assertThat(q.poll(4999 * MS, OPEN).expired()).isEmpty();
        AdmissionQueue.Poll<String> at5 = q.poll(5 * SECOND, OPEN);
        assertThat(at5.expired()).containsExactly(new AdmissionQueue.Removed<>("x", ShedReason.DEADLINE_AT_DEQUEUE));
        q.release();
        assertThat(q.poll(5 * SECOND, OPEN).started()).containsExactly("y");
        assertThat(q.shedCounts()).containsEntry(ShedReason.DEADLINE_AT_DEQUEUE, 1L);
    }

    @Test
    void theQueueTimeoutBoundsTheWaitWhenItComesBeforeTheDeadlineR20() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(100, 1).withQueueTimeout(Duration.ofSeconds(3)));
        submit(q, "busy", 0, 0);
        q.poll(0, OPEN);
        q.submit("x", 0, 1, true, 5 * SECOND, 0);
        assertThat(q.poll(3 * SECOND, OPEN).expired()).extracting(AdmissionQueue.Removed::item).containsExactly("x");
    }

    @Test
    void penaliseStopsStartingWorkUntilRetryAfterButTouchesNothingInFlight() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(10, 5));
        submit(q, "a", 0, 0);
        assertThat(q.poll(0, OPEN).started()).containsExactly("a");
        q.penalise(Duration.ofSeconds(2), 0);
        submit(q, "b", 0, 0);
        AdmissionQueue.Poll<String> p = q.poll(SECOND, OPEN);
        assertThat(p.started()).isEmpty();
        assertThat(p.wakeAtNanos()).hasValue(2 * SECOND);
        assertThat(q.inFlight()).isEqualTo(1);
        assertThat(q.poll(2 * SECOND, OPEN).started()).containsExactly("b");
    }

    @Test
    void aDeadlineThatComesBeforeThePenaltyEndsIsShedAtSubmit() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.defaults());
        q.penalise(Duration.ofSeconds(30), 0);
        Admission<String> a = q.submit("x", 0, 0, true, 10 * SECOND, 0);
        assertThat(a).isEqualTo(new Admission.Rejected<>(ShedReason.DEADLINE_AT_SUBMIT, Duration.ofSeconds(30)));
    }

    @Test
    void concurrencyIsBoundedByMaxConcurrent() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(10, 2));
        for (int i = 0; i < 5; i++) {
            submit(q, "c" + i, 0, 0);
        }
        assertThat(q.poll(0, OPEN).started()).containsExactly("c0", "c1");
        assertThat(q.poll(0, OPEN).started()).isEmpty();
        q.release();
        assertThat(q.poll(0, OPEN).started()).containsExactly("c2");
    }

    @Test
    void theGateDecidesWhenTheHeadStarts() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(10, 10));
        submit(q, "a", 0, 0);
        submit(q, "b", 0, 0);
        AdmissionQueue.Poll<String> p = q.poll(0, (item, now) -> item.equals("a") ? 0 : 250 * MS);
        assertThat(p.started()).containsExactly("a");
        assertThat(p.wakeAtNanos()).hasValue(250 * MS);
    }

    @Test
    void shedCountsAreKeptByReason() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(1, 1));
        q.submit("late", 0, order++, true, 0, 0);
        submit(q, "bg", 1, 0);
        submit(q, "i", 0, 0); // evicts bg
        submit(q, "j", 0, 0); // full
        Map<ShedReason, Long> counts = q.shedCounts();
        assertThat(counts).containsEntry(ShedReason.DEADLINE_AT_SUBMIT, 1L).containsEntry(ShedReason.EVICTED, 1L)
                .containsEntry(ShedReason.FULL, 1L).containsEntry(ShedReason.DEADLINE_AT_DEQUEUE, 0L);
    }

    @Test
    void withAgingAStarvedBackgroundJobRunsWithinElevenSecondsR21() {
        // R21: one low-priority item at t = 0 with a 30 s deadline; urgent items arrive every 100 ms,
        // service time 100 ms, aging step 1 s. Levels here: 0 urgent, 10 background (R21's 10 vs 0).
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(1000, 1).withAgingStep(Duration.ofSeconds(1)));
        q.submit("background", 10, order++, true, 30 * SECOND, 0);
        long dispatchedAt = -1;
        List<String> urgentOrder = new ArrayList<>();
        for (long t = 0; t <= 30 * SECOND; t += 100 * MS) {
            q.submit("u" + t / (100 * MS), 0, order++, true, t + 30 * SECOND, t);
            List<String> started = q.poll(t, OPEN).started();
            for (String s : started) {
                if (s.equals("background")) {
                    dispatchedAt = t;
                } else {
                    urgentOrder.add(s);
                }
            }
            if (!started.isEmpty()) {
                q.release(); // service time 100 ms: done by the next tick
            }
            if (dispatchedAt >= 0) {
                break;
            }
        }
        assertThat(dispatchedAt).isBetween(0L, 11 * SECOND);
        // FIFO among equal effective priority
        List<String> sorted = new ArrayList<>(urgentOrder);
        sorted.sort((a, b) -> Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1))));
        assertThat(urgentOrder).isEqualTo(sorted);
    }

    @Test
    void withoutAgingStrictPriorityStarvesTheBackgroundJobUntilItsDeadline() {
        AdmissionQueue<String> q = new AdmissionQueue<>(AdmissionConfig.of(1000, 1));
        q.submit("background", 10, order++, true, 30 * SECOND, 0);
        boolean expired = false;
        for (long t = 0; t <= 31 * SECOND && !expired; t += 100 * MS) {
            q.submit("u", 0, order++, false, 0, t);
            AdmissionQueue.Poll<String> p = q.poll(t, OPEN);
            assertThat(p.started()).doesNotContain("background");
            expired = !p.expired().isEmpty();
            if (!p.started().isEmpty()) {
                q.release();
            }
        }
        assertThat(expired).as("dropped at its deadline, never executed").isTrue();
    }
}
