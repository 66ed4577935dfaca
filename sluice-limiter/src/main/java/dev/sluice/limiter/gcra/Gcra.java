package dev.sluice.limiter.gcra;

/**
 * The Generic Cell Rate Algorithm as a token bucket (SPEC §1 "burst policy"), as pure functions on
 * one {@code long} of state per key: the <em>theoretical arrival time</em> (TAT), in
 * {@link GcraParams ticks} on a monotonic clock. A store keeps the TAT; these functions say what to
 * do with it. They allocate nothing and are thread-safe (stateless).
 *
 * <p>Model: the bucket's <em>backlog</em> at time {@code now} is {@code max(0, TAT − now)}; a full
 * bucket has backlog 0, an empty one backlog {@code capacityTicks}. A request of cost {@code c} is
 * admitted iff {@code backlog + c·T ≤ capacityTicks}, and then {@code TAT = max(TAT, now) + c·T}.
 * This is exactly a token bucket with capacity {@code q}, continuous refill {@code q / w} per second
 * and fractional tokens kept (so the wait for a partly refilled token is exact: R13).
 *
 * <p>Time never runs backwards for a key (R15): the TAT only ever moves to {@code max(TAT, now) + c·T}
 * on admission, so a stale or stepped-back {@code now} can only make the bucket look emptier, never
 * mint tokens. A TAT in the past means "full", however long ago (an idle bucket is simply full).
 * Readings are compared by subtraction.
 *
 * <p>Ticks here are relative to a store's origin and stay non-negative; a TAT of 0 is a fresh key.
 */
public final class Gcra {

    /** Returned by {@link #admit} when the request does not fit now. Never a valid TAT. */
    public static final long DENIED = Long.MIN_VALUE;

    private Gcra() {}

    /**
     * The TAT after admitting {@code cost} units at {@code nowTicks}, or {@link #DENIED}.
     *
     * @param cost units, {@code 0 ≤ cost ≤ q} (the caller answers {@code cost > q} before: R14a)
     */
    public static long admit(GcraParams p, long tat, long nowTicks, long cost) {
        long base = tat - nowTicks > 0 ? tat : nowTicks;
        long next = base + cost * p.emissionTicks();
        return next - nowTicks <= p.capacityTicks() ? next : DENIED;
    }

    /**
     * Ticks from {@code nowTicks} until {@code cost} units would be admitted; 0 when they fit now.
     * R13: capacity 1 per second, one unit taken at 0, asked at 200 ms: 800 ms.
     */
    public static long waitTicks(GcraParams p, long tat, long nowTicks, long cost) {
        long backlog = backlogTicks(tat, nowTicks);
        return Math.max(0, backlog + cost * p.emissionTicks() - p.capacityTicks());
    }

    /** {@code max(0, TAT − now)}: ticks until the bucket is full again. */
    public static long backlogTicks(long tat, long nowTicks) {
        long backlog = tat - nowTicks;
        return backlog > 0 ? backlog : 0;
    }

    /**
     * {@code r}: whole units available now, {@code 0 ≤ r ≤ q} (fractional tokens round down). A
     * {@code nowTicks} read before another thread admitted at a later reading can lie more than the
     * capacity behind {@code tat}; {@code r} is 0 then, never negative.
     */
    public static long remaining(GcraParams p, long tat, long nowTicks) {
        long free = p.capacityTicks() - backlogTicks(tat, nowTicks);
        return free > 0 ? free / p.emissionTicks() : 0;
    }

    /** {@code t}: whole seconds until the bucket is full again, rounded up (SPEC §1); 0 when full. */
    public static long resetSeconds(GcraParams p, long tat, long nowTicks) {
        return ceilSeconds(p, backlogTicks(tat, nowTicks));
    }

    /** {@code ticks} as whole seconds, rounded up (never optimistic: SPEC §1, §2.3; R02). */
    public static long ceilSeconds(GcraParams p, long ticks) {
        return GcraParams.ceilDiv(ticks, p.ticksPerSecond());
    }

    /** {@code ticks} as whole microseconds, rounded up. */
    public static long ceilMicros(GcraParams p, long ticks) {
        return GcraParams.ceilDiv(ticks, p.ticksPerMicro());
    }

    /** True when the bucket holds {@code q} units at {@code nowTicks}: its state can be forgotten. */
    public static boolean isFull(long tat, long nowTicks) {
        return tat - nowTicks <= 0;
    }

    /**
     * The TAT after giving back {@code cost} units charged earlier (SPEC §3.9: an upstream 503 is
     * refunded). Never credits beyond a full bucket.
     */
    public static long refund(GcraParams p, long tat, long nowTicks, long cost) {
        if (tat - nowTicks <= 0) {
            return tat;
        }
        long back = tat - cost * p.emissionTicks();
        return back - nowTicks > 0 ? back : nowTicks;
    }
}
