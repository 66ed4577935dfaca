package dev.sluice.limiter.gcra;

/**
 * The integer constants of one burst policy's GCRA, in <em>ticks</em> of {@code 1 / ticksPerMicro}
 * microseconds. Scaling the microsecond by {@code ticksPerMicro} makes the emission interval
 * {@code w / q} a whole number of ticks, so the arithmetic is exact: no float, no rounding drift
 * (SPEC §3.14: integer microsecond arithmetic, the same in Java and in a store's script).
 *
 * <p>For {@code q} units per {@code w} seconds let {@code g = gcd(w·10^6, q)}. Then
 * {@code ticksPerMicro = q / g} and {@code emissionTicks = w·10^6 / g} exactly, and
 * {@code capacityTicks = q · emissionTicks = w·10^6·ticksPerMicro} is the whole window.
 * When {@code q / g} exceeds {@value #MAX_TICKS_PER_MICRO} (odd capacities with very high rates,
 * such as 10 MiB/s of content bytes) the scale is capped at {@value #MAX_TICKS_PER_MICRO} and the
 * emission interval is rounded <em>up</em>: the bucket refills at most 1 % slower than configured,
 * never faster (safe side); the capacity stays exactly {@code q}. Policies for which even that would
 * be off by more than 1 % are rejected.
 *
 * <p>The cap keeps tick counts within a {@code long} for {@code 2^63 / 2048} µs ≈ 142 years of store
 * uptime, so a bucket idle for any time a process can live is simply full.
 *
 * @param ticksPerMicro ticks per microsecond, 1 .. {@value #MAX_TICKS_PER_MICRO}
 * @param emissionTicks ticks one unit of cost occupies (the emission interval {@code T})
 * @param capacityTicks {@code q · T}: the backlog a full-to-empty bucket holds (the tolerance)
 * @param exact whether {@code T} is exactly {@code w / q}
 */
public record GcraParams(long ticksPerMicro, long emissionTicks, long capacityTicks, boolean exact) {

    /** The cap on the tick scale; see the class comment. */
    public static final long MAX_TICKS_PER_MICRO = 2048;

    static final long MICROS_PER_SECOND = 1_000_000L;

    /** Below this many ticks per unit, rounding {@code T} up would slow the refill by more than 1 %. */
    static final long MIN_INEXACT_EMISSION_TICKS = 100;

    /**
     * The constants for {@code quota} units per {@code windowSeconds}.
     *
     * @throws IllegalArgumentException when {@code quota <= 0} or {@code windowSeconds <= 0} (naming
     *     {@code q} or {@code w}), or when {@code q / w} is too fine to represent within 1 %
     */
    public static GcraParams of(long quota, long windowSeconds) {
        if (quota <= 0) {
            throw new IllegalArgumentException("q: must be > 0, was " + quota);
        }
        if (windowSeconds <= 0) {
            throw new IllegalArgumentException("w: must be > 0, was " + windowSeconds);
        }
        long windowMicros = Math.multiplyExact(windowSeconds, MICROS_PER_SECOND);
        long g = gcd(windowMicros, quota);
        long scale = quota / g;
        if (scale <= MAX_TICKS_PER_MICRO) {
            long emission = windowMicros / g;
            return new GcraParams(scale, emission, Math.multiplyExact(emission, quota), true);
        }
        long emission = ceilDiv(Math.multiplyExact(windowMicros, MAX_TICKS_PER_MICRO), quota);
        if (emission < MIN_INEXACT_EMISSION_TICKS) {
            throw new IllegalArgumentException("q: " + quota + " per " + windowSeconds
                    + " s is too fine a rate to enforce within 1 %; use a round q (e.g. a multiple of 1000)"
                    + " or a longer w");
        }
        return new GcraParams(MAX_TICKS_PER_MICRO, emission, Math.multiplyExact(emission, quota), false);
    }

    /** Ticks per second: {@code ticksPerMicro · 10^6}. */
    public long ticksPerSecond() {
        return ticksPerMicro * MICROS_PER_SECOND;
    }

    /** Converts a non-negative microsecond reading (relative to the store's origin) to ticks. */
    public long ticksOf(long micros) {
        return micros * ticksPerMicro;
    }

    private static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    static long ceilDiv(long x, long y) {
        return -Math.floorDiv(-x, y);
    }
}
