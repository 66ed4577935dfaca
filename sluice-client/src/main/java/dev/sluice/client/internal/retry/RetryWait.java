package dev.sluice.client.internal.retry;

import dev.sluice.client.RetryConfig;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * How long to wait before a retry (SPEC §4.3).
 *
 * <ul>
 *   <li>With a server hint {@code ra}: {@code ra + U(0, J)}, {@code J = min(20 s, max(1 s, ra))}
 *       — jitter only upward, so the hint is never undercut (R11: Retry-After 30 → [30 s, 50 s]).</li>
 *   <li>Without one: full jitter {@code U(0, min(cap, base · 2^attempt))}, base 0.5 s, cap 20 s.</li>
 * </ul>
 *
 * <p>Arithmetic is in double seconds with the exponent capped before any conversion to nanoseconds,
 * so no attempt number overflows or yields a negative wait (R10); results saturate rather than
 * throw. Stateless and thread-safe; the randomness is the caller's.
 */
public final class RetryWait {

    /** 2^62 is far past any cap; capping the exponent keeps the power finite and exact. */
    private static final int MAX_EXPONENT = 62;

    private final double baseSeconds;
    private final double capSeconds;
    private final double jitterFloorSeconds;
    private final double jitterCeilingSeconds;

    public RetryWait(RetryConfig config) {
        this.baseSeconds = seconds(config.backoffBase());
        this.capSeconds = seconds(config.backoffCap());
        this.jitterFloorSeconds = seconds(config.jitterFloor());
        this.jitterCeilingSeconds = seconds(config.jitterCeiling());
    }

    /** {@code J = min(ceiling, max(floor, ra))}, the jitter span added to a hint of {@code ra}. */
    public Duration jitterSpan(Duration hint) {
        return duration(Math.min(jitterCeilingSeconds, Math.max(jitterFloorSeconds, seconds(hint))));
    }

    /** {@code ra + U(0, J)}: never shorter than {@code hint}, never negative. */
    public Duration afterHint(Duration hint, RandomGenerator random) {
        double ra = seconds(hint);
        double j = Math.min(jitterCeilingSeconds, Math.max(jitterFloorSeconds, ra));
        return duration(ra + random.nextDouble() * j);
    }

    /**
     * {@code ra + U(0, J')} with the jitter span trimmed to what fits: {@code J' = min(J, latest − ra)}.
     * The hint itself is never undercut (SPEC §2.4, R03): when {@code hint >= latest} the result is
     * the hint. One random draw, as {@link #afterHint(Duration, RandomGenerator)}.
     *
     * @param latest the longest wait allowed (the maximum wait, what is left of the deadline)
     */
    public Duration afterHint(Duration hint, Duration latest, RandomGenerator random) {
        double ra = seconds(hint);
        double j = Math.min(jitterCeilingSeconds, Math.max(jitterFloorSeconds, ra));
        j = Math.max(0.0, Math.min(j, seconds(latest) - ra));
        return duration(ra + random.nextDouble() * j);
    }

    /**
     * Full jitter drawn within what fits: {@code U(0, min(cap, base · 2^attempt, latest))}.
     *
     * @param latest the longest wait allowed (the maximum wait, what is left of the deadline)
     */
    public Duration fullJitter(int attempt, Duration latest, RandomGenerator random) {
        return duration(random.nextDouble() * Math.min(ceilingSeconds(attempt), seconds(latest)));
    }

    /** The upper bound of the full-jitter wait after attempt {@code attempt}: {@code min(cap, base·2^attempt)}. */
    public Duration backoffCeiling(int attempt) {
        return duration(ceilingSeconds(attempt));
    }

    /** Full jitter {@code U(0, min(cap, base · 2^attempt))} for any {@code attempt >= 0}. */
    public Duration fullJitter(int attempt, RandomGenerator random) {
        return duration(random.nextDouble() * ceilingSeconds(attempt));
    }

    private double ceilingSeconds(int attempt) {
        int exponent = Math.min(Math.max(attempt, 0), MAX_EXPONENT);
        return Math.min(capSeconds, baseSeconds * Math.scalb(1.0, exponent));
    }

    /** Duration to double seconds without {@code toNanos()} (which overflows past 292 years). */
    public static double seconds(Duration d) {
        return d.getSeconds() + d.getNano() / 1e9;
    }

    /** Double seconds to a Duration, clamped to [0, Long.MAX_VALUE ns]. */
    public static Duration duration(double seconds) {
        if (!(seconds > 0)) {
            return Duration.ZERO;
        }
        double nanos = seconds * 1e9;
        if (nanos >= Long.MAX_VALUE) {
            return Duration.ofNanos(Long.MAX_VALUE);
        }
        return Duration.ofNanos((long) Math.ceil(nanos));
    }
}
