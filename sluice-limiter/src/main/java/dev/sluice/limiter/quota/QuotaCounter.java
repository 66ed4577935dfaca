package dev.sluice.limiter.quota;

/**
 * A calendar quota's state as one {@code long}: the window id (low {@value #WINDOW_BITS} bits) and
 * the units used in it ({@value #USED_BITS} bits), packed so a store can update both with one
 * compare-and-set. Pure functions; allocation-free and thread-safe.
 *
 * <p>A state whose window is older than the current one is a fresh window: nothing used. A state
 * whose window is <em>newer</em> than the current one means the UTC wall clock stepped backwards
 * (an NTP correction, a VM restored from a snapshot): the state is kept as it is, still counting
 * against the newer window, until the clock catches up. So a backward step never hands out a second
 * window's worth; the price is that {@code t} may then read longer than one window. (A forward step
 * past a boundary does start the next window early: the clock is all a calendar has.)
 *
 * <p>Window ids compare modulo {@code 2^19} (± 717 years of days), so a zero state (window 0, used 0)
 * is simply an old window.
 */
public final class QuotaCounter {

    /** Bits of the packed state that hold the window id (modulo {@code 2^19}). */
    public static final int WINDOW_BITS = 19;

    /** Bits that hold the used count. */
    public static final int USED_BITS = 44;

    /** The largest used count, and so the largest quota {@code q}: {@code 2^44 − 1} (≈ 17.6 × 10^12). */
    public static final long MAX_USED = (1L << USED_BITS) - 1;

    /** Returned by {@link #admit} when the cost does not fit. Packed states are never negative. */
    public static final long DENIED = -1;

    private static final long WINDOW_MASK = (1L << WINDOW_BITS) - 1;

    private QuotaCounter() {}

    /** The packed state for {@code used} units in window {@code windowId}. */
    public static long pack(long windowId, long used) {
        return ((windowId & WINDOW_MASK) << USED_BITS) | used;
    }

    /** The window a state counts against now: the current one, or a newer stored one (clock stepped back). */
    public static long effectiveWindow(long packed, long currentWindow) {
        long ahead = storedAhead(packed, currentWindow);
        return ahead > 0 ? currentWindow + ahead : currentWindow;
    }

    /** Units used in {@link #effectiveWindow}; 0 when the stored window is older than the current one. */
    public static long effectiveUsed(long packed, long currentWindow) {
        return storedAhead(packed, currentWindow) >= 0 ? packed & MAX_USED : 0;
    }

    /**
     * The state after charging {@code cost} units, or {@link #DENIED} when {@code used + cost > quota}.
     * The window rolls over here, on the first charge after a boundary.
     */
    public static long admit(long packed, long currentWindow, long cost, long quota) {
        long used = effectiveUsed(packed, currentWindow);
        if (cost > quota - used) {
            return DENIED;
        }
        return pack(effectiveWindow(packed, currentWindow), used + cost);
    }

    /**
     * The state after refunding {@code cost} units charged in window {@code chargedWindow}
     * (SPEC §3.9). A refund for a window that has since rolled over changes nothing: the new window
     * was never charged.
     */
    public static long refund(long packed, long chargedWindow, long cost) {
        if (((packed >>> USED_BITS) & WINDOW_MASK) != (chargedWindow & WINDOW_MASK)) {
            return packed;
        }
        long used = packed & MAX_USED;
        return pack(chargedWindow, Math.max(0, used - cost));
    }

    /** True when nothing is used in the effective window: the state can be forgotten. */
    public static boolean isFull(long packed, long currentWindow) {
        return effectiveUsed(packed, currentWindow) == 0;
    }

    /** How many windows the stored one is ahead of {@code currentWindow} (negative: behind). */
    private static long storedAhead(long packed, long currentWindow) {
        long stored = (packed >>> USED_BITS) & WINDOW_MASK;
        long diff = (stored - currentWindow) & WINDOW_MASK;
        // sign-extend the 19-bit difference
        return (diff << (64 - WINDOW_BITS)) >> (64 - WINDOW_BITS);
    }
}
