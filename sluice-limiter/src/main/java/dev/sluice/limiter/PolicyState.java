package dev.sluice.limiter;

import java.time.Instant;
import java.util.Optional;

/**
 * One policy's standing for one key at the moment of a decision or a usage read: the values of its
 * {@code RateLimit} member (SPEC §1, §2.1) and of its {@code GET /v1/usage} entry (SPEC §3.6).
 *
 * @param policy the policy
 * @param remaining {@code r}: units the key may still spend now, {@code 0 ≤ r ≤ q}
 * @param resetSeconds {@code t}: whole seconds until {@code r} is back to {@code q}, rounded up
 *     (SPEC §1), ≥ 0; 0 when nothing is spent. On a {@link Denied} the denying policy's {@code t}
 *     equals the Retry-After (SPEC §2.3)
 * @param used units spent and not yet restored ({@code q − r} for a burst policy, the window's count
 *     for a quota policy): the edge's 80 % soft limit reads it (SPEC §3.8)
 * @param resetAtEpochSecond for a quota policy, the end of the window the key counts against (epoch
 *     seconds, UTC): {@code reset_at} of SPEC §3.6, also the window's identity for refunds and for
 *     one soft-limit warning per window; {@link #NO_RESET_AT} for a burst policy
 */
public record PolicyState(Policy policy, long remaining, long resetSeconds, long used, long resetAtEpochSecond) {

    /** {@link #resetAtEpochSecond()} of a burst policy, which refills continuously. */
    public static final long NO_RESET_AT = Long.MIN_VALUE;

    public PolicyState {
        if (remaining < 0 || resetSeconds < 0 || used < 0) {
            throw new IllegalArgumentException("r, t and used must be >= 0: r=" + remaining + " t="
                    + resetSeconds + " used=" + used + " (policy " + policy.name() + ")");
        }
    }

    /** {@code reset_at} (SPEC §3.6): when a quota policy's window ends; empty for a burst policy. */
    public Optional<Instant> resetAt() {
        return resetAtEpochSecond == NO_RESET_AT
                ? Optional.empty()
                : Optional.of(Instant.ofEpochSecond(resetAtEpochSecond));
    }

    /** This state with {@code t} replaced (a denial's Retry-After, SPEC §2.3). */
    public PolicyState withResetSeconds(long seconds) {
        return seconds == resetSeconds ? this : new PolicyState(policy, remaining, seconds, used, resetAtEpochSecond);
    }
}
