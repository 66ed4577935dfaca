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
 * <p>Not thread-safe; the owner locks.
 */
public final class SlidingWindowCounter {

    private final long slotNanos;
    private final long[] counts;
    private final long[] slotIds;
    private boolean started;
    private long originNanos;
    private long latestSlot;

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
        this.slotIds = new long[n];
        java.util.Arrays.fill(slotIds, Long.MIN_VALUE);
    }

    /** A window of whole seconds with one-second slots. */
    public static SlidingWindowCounter ofSeconds(Duration window) {
        return new SlidingWindowCounter(Duration.ofSeconds(Math.max(1, window.toSeconds())), Duration.ofSeconds(1));
    }

    public void add(long nowNanos, long amount) {
        long slot = slotOf(nowNanos);
        int i = (int) Math.floorMod(slot, (long) counts.length);
        if (slotIds[i] != slot) {
            slotIds[i] = slot;
            counts[i] = 0;
        }
        counts[i] += amount;
    }

    public long sum(long nowNanos) {
        long slot = slotOf(nowNanos);
        long oldest = slot - counts.length + 1;
        long total = 0;
        for (int i = 0; i < counts.length; i++) {
            long id = slotIds[i];
            if (id != Long.MIN_VALUE && id >= oldest && id <= slot) {
                total += counts[i];
            }
        }
        return total;
    }

    private long slotOf(long nowNanos) {
        if (!started) {
            started = true;
            originNanos = nowNanos;
            latestSlot = 0;
        }
        long elapsed = nowNanos - originNanos; // subtraction: wrap-safe
        long slot = elapsed < 0 ? 0 : elapsed / slotNanos;
        if (slot < latestSlot) {
            slot = latestSlot; // a stale reading never rewinds the window
        }
        latestSlot = slot;
        return slot;
    }
}
