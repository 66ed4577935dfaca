package dev.sluice.limiter;

import dev.sluice.wire.snapshot.Outcome;
import org.jspecify.annotations.Nullable;

/**
 * One named limit of a {@link Plan} (SPEC §1): a {@link BurstPolicy} (token bucket, GCRA), a
 * {@link QuotaPolicy} (calendar window) or a {@link ConcurrencyPolicy} (requests in flight).
 * Immutable and thread-safe.
 *
 * <p>Every policy has the {@code RateLimit-Policy} parameters of SPEC §2.1: a name, the quota
 * {@code q}, the window {@code w} in seconds, the quota unit {@code qu} and an optional partition
 * key {@code pk}.
 */
public sealed interface Policy permits BurstPolicy, QuotaPolicy, ConcurrencyPolicy {

    /** The policy's name: the String item of the {@code RateLimit} / {@code RateLimit-Policy} member. */
    String name();

    /** {@code q}: units the policy allows per window (burst: the bucket capacity); always &gt; 0. */
    long quota();

    /**
     * {@code w} in seconds: the burst refill period (the whole bucket refills in {@code w}), or the
     * quota window's nominal length (86,400 for daily; 2,592,000, i.e. 30 days, for monthly); 0 for
     * a {@link ConcurrencyPolicy}, which has no window (no {@code w} on the wire).
     */
    long windowSeconds();

    /** {@code qu}: what one unit counts. */
    QuotaUnit unit();

    /**
     * {@code pk}: the partition key emitted with the policy (the edge sends it as a Byte Sequence of
     * its UTF-8 bytes), or {@code null} when the policy has none. Limiter state is partitioned by
     * the key passed to the store; the edge composes that key.
     */
    @Nullable String partitionKey();

    /**
     * What a denial by this policy means for the client (SPEC §1, §3.4): a burst policy clears in
     * seconds ({@link Outcome#RATE_LIMITED}), a quota policy at a window reset
     * ({@link Outcome#QUOTA_EXHAUSTED}); a concurrency policy clears when a request of the key ends
     * ({@link Outcome#RATE_LIMITED}: retryable within seconds).
     */
    default Outcome denialOutcome() {
        return switch (this) {
            case BurstPolicy b -> Outcome.RATE_LIMITED;
            case QuotaPolicy q -> Outcome.QUOTA_EXHAUSTED;
            case ConcurrencyPolicy c -> Outcome.RATE_LIMITED;
        };
    }

    /** Checks the fields every policy shares; the message names the field (R14b). */
    static void requireCommon(String name, long quota, QuotaUnit unit) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name: must not be blank");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            // the name travels as an sf-string (RFC 9651 §3.3.3): printable ASCII only
            if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("name: must be printable ASCII, was \"" + name + "\"");
            }
        }
        if (quota <= 0) {
            throw new IllegalArgumentException("q: must be > 0, was " + quota + " (policy " + name + ")");
        }
        if (unit == null) {
            throw new IllegalArgumentException("unit: must not be null (policy " + name + ")");
        }
        if (unit == QuotaUnit.CONCURRENT_REQUESTS) {
            throw new IllegalArgumentException("unit: concurrent-requests is not a burst or quota unit; use a"
                    + " concurrency policy (policy " + name + ")");
        }
    }
}
