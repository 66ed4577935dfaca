package dev.sluice.client.internal.throttle;

import java.time.Duration;

/**
 * A count over a sliding window of monotonic time, kept in fixed slots (one second by default):
 * entries older than the window stop counting, to slot precision. Memory is constant.
 *
 * <p>Time is a monotonic nanosecond reading compared only by subtraction from the first reading, so
 * a clock that starts near {@link Long#MAX_VALUE} and wraps is fine (R15). A stale reading (earlier
 * than one already seen) is counted in the latest slot, never rewinding the window.
 *
 * <p>{@link #add} and {@link #sum} are O(1) amortised: a running total is kept, and slots leaving the
 * window are subtracted as time moves past them (the simulator calls these for every request of
 * 10,000 clients).
 *
 * <p>Not thread-safe; the owner locks.
 */
public final class SlidingWindowCounter {

    private final long slotNanos;
    private final long[] counts;
    /** The slot each entry counts for, plus one; 0 is an empty entry (so a new counter needs no fill). */
    private final long[] slotTags;
    private boolean started;
    private long originNanos;
    private long latestSlot;
    private long total;

    /**
     * @param window the window length, a whole multiple of {@code slot}
     * @param slot the slot length
     */
    public SlidingWindowCounter(Duration window, Duration slot) {
        long w = window.toNanos();
        long s = slot.toNanos();
        if (s <= 0 || w < s) {
            throw new IllegalArgumentException("need 0 < slot <= window: " + slot + ", " + window);
        }
        this.slotNanos = s;
        int n = (int) Math.max(1, w / s);
        this.counts = new long[n];
        this.slotTags = new long[n];
    }

    /** A window of whole seconds with one-second slots. */
    public static SlidingWindowCounter ofSeconds(Duration window) {
        return new SlidingWindowCounter(Duration.ofSeconds(Math.max(1, window.toSeconds())), Duration.ofSeconds(1));
    }

    public void add(long nowNanos, long amount) {
        long slot = slotOf(nowNanos); // >= 0
        int i = (int) (slot % counts.length);
        if (slotTags[i] != slot + 1) {
            slotTags[i] = slot + 1; // the slot it held has left the window: expire() subtracted it
            counts[i] = 0;
        }
        counts[i] += amount;
        total += amount;
    }

    /** The count over the window ending at {@code nowNanos}: slots {@code [slot − n + 1, slot]}. */
    public long sum(long nowNanos) {
        slotOf(nowNanos);
        return total;
    }

    /**
     * The window moved from {@code from} to {@code to}: slots up to {@code to − n} stop counting.
     * Only entries still tagged with a slot that leaves are subtracted; an entry left behind with
     * an older tag was subtracted when its slot left, and {@link #add} resets it on reuse. So a
     * jump past the whole window just zeroes the total, and nothing is ever filled.
     */
    private void expire(long from, long to) {
        int n = counts.length;
        if (total == 0) {
            return; // nothing counted, nothing to expire (a quiet client's window costs nothing)
        }
        if (to - from >= n) {
            total = 0;
            return;
        }
        for (long id = Math.max(0, from - n + 1); id <= to - n; id++) {
            int i = (int) (id % n);
            if (slotTags[i] == id + 1) {
                total -= counts[i];
                slotTags[i] = 0;
                if (total == 0) {
                    return;
                }
            }
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
            expire(latestSlot, slot);
            latestSlot = slot;
        }
        return latestSlot; // a stale reading never rewinds the window
    }
}
