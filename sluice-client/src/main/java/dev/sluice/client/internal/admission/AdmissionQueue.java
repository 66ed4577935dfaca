package dev.sluice.client.internal.admission;

import dev.sluice.client.AdmissionConfig;
import dev.sluice.client.ShedReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The bounded, deadline-aware priority admission queue (SPEC §5), as a data structure with no
 * threads and no clock of its own: every method takes the monotonic "now", and {@link #poll}
 * returns when it next needs to be called. The engine (or a simulator) drives it.
 *
 * <ul>
 *   <li>Bounded by {@code maxQueue}; a full queue sheds the newcomer ({@link ShedReason#FULL})
 *       unless it is more urgent than something queued: then the newest-queued entry of the least
 *       urgent level is evicted ({@link ShedReason#EVICTED}) — with levels 0/1, an interactive call
 *       evicts the newest background call (§5.2).</li>
 *   <li>Lower priority number first, FIFO within a level by the caller's order number (§5.2).</li>
 *   <li>A deadline is checked at submit and again at dequeue; an entry whose deadline (or queue
 *       timeout) passes while it waits is returned as expired and never started (§5.3, R20). One
 *       absolute deadline is given per entry: re-submitting a retry does not extend it.</li>
 *   <li>{@link #penalise} stops starting new work until a time; nothing in flight is touched (§5.4).</li>
 *   <li>At most {@code maxConcurrent} entries are in flight; {@link #release} frees a slot.</li>
 *   <li>Optional aging (R21): effective level = max(0, level − floor(waited / agingStep)).</li>
 * </ul>
 *
 * <p>Selection is a linear scan, O(maxQueue) per start: queues sized by Little's Law hold tens to
 * hundreds of entries. Not thread-safe; the owner locks.
 *
 * @param <E> the entry payload
 */
public final class AdmissionQueue<E> {

    /** What the gate says about starting an entry now. */
    public interface Gate<E> {
        /** Return this from {@link #waitNanos} to remove the entry without starting it. */
        long REJECT = -1;

        /**
         * @return 0 to start {@code item} now (the gate has taken what it needed, e.g. a pacer
         *     token), {@link #REJECT} to drop it, or the nanoseconds to wait before asking again
         */
        long waitNanos(E item, long nowNanos);
    }

    /** The result of a submit. */
    public sealed interface Admission<E> {
        /** Queued; {@code evicted} is the entry it displaced, or {@code null}. */
        record Admitted<E>(@Nullable E evicted) implements Admission<E> {
        }

        /** Not queued. */
        record Rejected<E>(ShedReason reason, Duration retryHint) implements Admission<E> {
        }
    }

    /** An entry that left the queue without starting. */
    public record Removed<E>(E item, ShedReason reason) {
    }

    /** What one poll did. {@code wakeAtNanos} is empty when only an outside event can change anything. */
    public record Poll<E>(List<E> started, List<Removed<E>> expired, List<E> rejectedByGate,
            OptionalLong wakeAtNanos) {
    }

    private static final class Entry<E> {
        final E item;
        final int priority;
        final long order;
        final long enqueuedNanos;
        final boolean expires;
        final long expiryNanos;

        Entry(E item, int priority, long order, long enqueuedNanos, boolean expires, long expiryNanos) {
            this.item = item;
            this.priority = priority;
            this.order = order;
            this.enqueuedNanos = enqueuedNanos;
            this.expires = expires;
            this.expiryNanos = expiryNanos;
        }
    }

    private final AdmissionConfig config;
    private final List<Entry<E>> entries = new ArrayList<>();
    private final Map<ShedReason, Long> shed = new EnumMap<>(ShedReason.class);
    private int inFlight;
    private boolean paused;
    private long pausedUntilNanos;

    public AdmissionQueue(AdmissionConfig config) {
        this.config = config;
        for (ShedReason r : ShedReason.values()) {
            shed.put(r, 0L);
        }
    }

    /**
     * Offers an entry.
     *
     * @param priority level, {@code >= 0}; lower goes first
     * @param order FIFO order within a level (a retry keeps its call's first order)
     * @param hasDeadline whether {@code deadlineNanos} applies
     * @param deadlineNanos the absolute monotonic deadline, fixed when the call was admitted
     */
    public Admission<E> submit(E item, int priority, long order, boolean hasDeadline, long deadlineNanos,
            long nowNanos) {
        if (priority < 0) {
            throw new IllegalArgumentException("priority must be >= 0: " + priority);
        }
        if (hasDeadline && deadlineNanos - nowNanos <= 0) {
            return reject(ShedReason.DEADLINE_AT_SUBMIT, Duration.ZERO);
        }
        if (hasDeadline && isPaused(nowNanos) && pausedUntilNanos - deadlineNanos >= 0) {
            // nothing starts before the pause ends, and the deadline comes first: fail now, not later
            return reject(ShedReason.DEADLINE_AT_SUBMIT, Duration.ofNanos(pausedUntilNanos - nowNanos));
        }
        @Nullable E evicted = null;
        if (entries.size() >= config.maxQueue()) {
            Entry<E> victim = evictionVictim(priority);
            if (victim == null) {
                return reject(ShedReason.FULL, fullHint(nowNanos));
            }
            entries.remove(victim);
            count(ShedReason.EVICTED);
            evicted = victim.item;
        }
        entries.add(entry(item, priority, order, hasDeadline, deadlineNanos, nowNanos));
        return new Admission.Admitted<>(evicted);
    }

    /**
     * Expires what has expired, then starts entries in order while a slot is free, the queue is not
     * penalised, and the gate agrees.
     */
    public Poll<E> poll(long nowNanos, Gate<E> gate) {
        List<Removed<E>> expired = new ArrayList<>(0);
        for (int i = 0; i < entries.size(); ) { // by index: no iterator per poll
            Entry<E> e = entries.get(i);
            if (e.expires && e.expiryNanos - nowNanos <= 0) {
                entries.remove(i);
                count(ShedReason.DEADLINE_AT_DEQUEUE);
                expired.add(new Removed<>(e.item, ShedReason.DEADLINE_AT_DEQUEUE));
            } else {
                i++;
            }
        }
        List<E> started = new ArrayList<>(0);
        List<E> rejected = new ArrayList<>(0);
        long wake = Long.MAX_VALUE;
        boolean hasWake = false;
        if (isPaused(nowNanos)) {
            wake = pausedUntilNanos - nowNanos;
            hasWake = true;
        } else {
            while (inFlight < config.maxConcurrent() && !entries.isEmpty()) {
                Entry<E> head = Objects.requireNonNull(next(nowNanos), "the queue is not empty");
                long w = gate.waitNanos(head.item, nowNanos);
                if (w == 0) {
                    entries.remove(head);
                    inFlight++;
                    started.add(head.item);
                } else if (w < 0) {
                    entries.remove(head);
                    rejected.add(head.item);
                } else {
                    wake = w;
                    hasWake = true;
                    break;
                }
            }
        }
        for (int i = 0; i < entries.size(); i++) {
            Entry<E> e = entries.get(i);
            if (e.expires) {
                long left = e.expiryNanos - nowNanos;
                if (!hasWake || left < wake) {
                    wake = left;
                    hasWake = true;
                }
            }
        }
        OptionalLong wakeAt = hasWake ? OptionalLong.of(nowNanos + Math.max(1, wake)) : OptionalLong.empty();
        return new Poll<>(started, expired, rejected, wakeAt);
    }

    /**
     * Puts back an entry that {@link #poll} started but its owner could not start after all (a
     * shared pacer store said to wait): its slot is freed and it takes its old place (same level,
     * order, enqueue time and expiry), whatever the queue's size, since it held that place.
     */
    public void putBack(E item, int priority, long order, boolean hasDeadline, long deadlineNanos,
            long enqueuedNanos) {
        release();
        entries.add(entry(item, priority, order, hasDeadline, deadlineNanos, enqueuedNanos));
    }

    /** An entry queued at {@code enqueuedNanos}: it expires at its deadline or its queue timeout, the earlier. */
    private Entry<E> entry(E item, int priority, long order, boolean hasDeadline, long deadlineNanos, long enqueuedNanos) {
        boolean expires = hasDeadline;
        long expiry = deadlineNanos;
        if (config.queueTimeout() != null) {
            long byTimeout = enqueuedNanos + config.queueTimeout().toNanos();
            if (!expires || byTimeout - expiry < 0) {
                expiry = byTimeout;
            }
            expires = true;
        }
        return new Entry<>(item, priority, order, enqueuedNanos, expires, expiry);
    }

    /** A started entry finished (answer, failure or cancellation): frees its slot. */
    public void release() {
        if (inFlight <= 0) {
            throw new IllegalStateException("release without a started entry");
        }
        inFlight--;
    }

    /** Removes a waiting entry (the caller cancelled). @return whether it was queued */
    public boolean remove(E item) {
        for (Iterator<Entry<E>> it = entries.iterator(); it.hasNext(); ) {
            if (it.next().item == item) {
                it.remove();
                return true;
            }
        }
        return false;
    }

    /**
     * Stops starting new work for {@code retryAfter} (SPEC §5.4: called on a 429). A shorter penalty
     * never shortens a longer one; nothing in flight is cancelled.
     */
    public void penalise(@Nullable Duration retryAfter, long nowNanos) {
        if (retryAfter == null || retryAfter.isNegative() || retryAfter.isZero()) {
            return;
        }
        long until = nowNanos + Math.min(retryAfter.toNanos(), Long.MAX_VALUE / 4);
        if (!isPaused(nowNanos) || until - pausedUntilNanos > 0) {
            pausedUntilNanos = until;
            paused = true;
        }
    }

    /** Whether a penalty is in force. */
    public boolean isPaused(long nowNanos) {
        if (paused && nowNanos - pausedUntilNanos >= 0) {
            paused = false;
        }
        return paused;
    }

    public int size() {
        return entries.size();
    }

    public int inFlight() {
        return inFlight;
    }

    /** Shed counts by reason since creation (SPEC §5.5). */
    public Map<ShedReason, Long> shedCounts() {
        return Map.copyOf(shed);
    }

    private Admission<E> reject(ShedReason reason, Duration hint) {
        count(reason);
        return new Admission.Rejected<>(reason, hint);
    }

    private void count(ShedReason reason) {
        shed.merge(reason, 1L, Long::sum);
    }

    private Duration fullHint(long nowNanos) {
        if (isPaused(nowNanos)) {
            return Duration.ofNanos(Math.max(pausedUntilNanos - nowNanos, 1_000_000_000L));
        }
        return Duration.ofSeconds(1);
    }

    /** The newest-queued entry of the least urgent level, if that level is less urgent than {@code priority}. */
    private @Nullable Entry<E> evictionVictim(int priority) {
        @Nullable Entry<E> victim = null;
        for (Entry<E> e : entries) {
            if (e.priority <= priority) {
                continue;
            }
            if (victim == null || e.priority > victim.priority
                    || (e.priority == victim.priority && e.order > victim.order)) {
                victim = e;
            }
        }
        return victim;
    }

    private @Nullable Entry<E> next(long nowNanos) {
        @Nullable Entry<E> best = null;
        int bestLevel = Integer.MAX_VALUE;
        for (Entry<E> e : entries) {
            int level = effectivePriority(e, nowNanos);
            if (best == null || level < bestLevel || (level == bestLevel && e.order < best.order)) {
                best = e;
                bestLevel = level;
            }
        }
        return best;
    }

    private int effectivePriority(Entry<E> e, long nowNanos) {
        if (config.agingStep() == null) {
            return e.priority;
        }
        long waited = Math.max(0, nowNanos - e.enqueuedNanos);
        long steps = waited / config.agingStep().toNanos();
        return (int) Math.max(0, e.priority - Math.min(steps, Integer.MAX_VALUE));
    }
}
