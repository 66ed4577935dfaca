package dev.sluice.client.internal.throttle;

import java.time.Duration;

/**
 * A count over a sliding window of monotonic time, kept in fixed slots (one second by default):
 * entries older than the window stop counting, to slot precision.
 *
 * <p>Time is a monotonic nanosecond reading compared only by subtraction from the first reading, so
 * a clock that starts near {@link Long#MAX_VALUE} and wraps is fine (R15). A stale reading (earlier
 * than one already seen) is counted in the latest slot, never rewinding the window.
 *
 * <p>Only the slots that counted something are kept: a ring of {@code (slot, count)} pairs in slot
 * order, oldest first, allocated on the first {@link #add} and grown by doubling; it never holds more
 * pairs than the window has slots. So memory follows how many slots of the window were busy (a client
 * calling once every ten seconds keeps about a dozen pairs of a two-minute window, not 120), a
 * counter never added to holds no array, and nothing is ever filled. {@link #add} and {@link #sum}
 * are O(1) amortised: a running total is kept, and pairs leaving the window are subtracted as time
 * moves past them (the simulator calls these for every request of 10,000 clients).
 *
 * <p>Not thread-safe; the owner locks.
 */
public final class SlidingWindowCounter {

    private static final long[] EMPTY = new long[0];
    private static final int FIRST_CAPACITY = 4;

    private final long slotNanos;
    /** Slots in the window: the ring never needs more pairs than this. */
    private final int slots;
    /** The ring: slot numbers and their counts, {@code size} pairs from {@code head}, slots increasing. */
    private long[] ringSlots = EMPTY;
    private long[] ringCounts = EMPTY;
    private int head;
    private int size;
    private boolean started;
    private long originNanos;
    private long latestSlot;
    private long total;

    /**
     * @param window the window length, a whole multiple of {@code slot}
     * @param slot the slot length
     * @throws IllegalArgumentException unless {@code 0 < slot <= window}
     */
    public SlidingWindowCounter(Duration window, Duration slot) {
        long w = window.toNanos();
        long s = slot.toNanos();
        if (s <= 0 || w < s) {
            throw new IllegalArgumentException("need 0 < slot <= window: " + slot + ", " + window);
        }
        this.slotNanos = s;
        this.slots = (int) Math.max(1, Math.min(Integer.MAX_VALUE - 8, w / s));
    }

    /** A window of whole seconds with one-second slots. */
    public static SlidingWindowCounter ofSeconds(Duration window) {
        return new SlidingWindowCounter(Duration.ofSeconds(Math.max(1, window.toSeconds())), Duration.ofSeconds(1));
    }

    /** Counts {@code amount} in the slot of {@code nowNanos} (the latest slot for a stale reading). */
    public void add(long nowNanos, long amount) {
        long slot = slotOf(nowNanos); // >= 0
        total += amount;
        if (size > 0) {
            int tail = (head + size - 1) & (ringSlots.length - 1);
            if (ringSlots[tail] == slot) {
                ringCounts[tail] += amount;
                return;
            }
        }
        if (size == ringSlots.length) {
            grow();
        }
        int i = (head + size) & (ringSlots.length - 1);
        ringSlots[i] = slot;
        ringCounts[i] = amount;
        size++;
    }

    /** The count over the window ending at {@code nowNanos}: slots {@code [slot − n + 1, slot]}. */
    public long sum(long nowNanos) {
        slotOf(nowNanos);
        return total;
    }

    /** Doubles the ring (a power of two, so an index wraps with a mask), keeping its order. */
    private void grow() {
        int capacity = ringSlots.length == 0 ? FIRST_CAPACITY : ringSlots.length * 2;
        long[] s = new long[capacity];
        long[] c = new long[capacity];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (ringSlots.length - 1);
            s[k] = ringSlots[i];
            c[k] = ringCounts[i];
        }
        ringSlots = s;
        ringCounts = c;
        head = 0;
    }

    /** The window now ends at slot {@code to}: pairs of slots up to {@code to − n} stop counting. */
    private void expire(long to) {
        long oldestLive = to - slots + 1;
        while (size > 0 && ringSlots[head] < oldestLive) {
            total -= ringCounts[head];
            head = (head + 1) & (ringSlots.length - 1);
            size--;
        }
        if (size == 0) {
            total = 0;
        }
    }

    private long slotOf(long nowNanos) {
        if (!started) {
            started = true;
            originNanos = nowNanos;
            latestSlot = 0;
        }
        long elapsed = nowNanos - originNanos; // subtraction: wrap-safe
        long slot = elapsed < 0 ? 0 : elapsed / slotNanos;
        if (slot > latestSlot) {
            latestSlot = slot;
            expire(slot);
        }
        return latestSlot; // a stale reading never rewinds the window
    }
}
