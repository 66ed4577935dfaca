package dev.sluice.limiter;

import dev.sluice.limiter.gcra.GcraParams;

/**
 * A token bucket (SPEC §1 "burst policy"): capacity {@code q}, refilled at {@code q / w} units per
 * second, continuously. Implemented as GCRA (one timestamp per key; see
 * {@link dev.sluice.limiter.gcra.Gcra}). A request whose cost exceeds {@code q} can never fit and is
 * answered {@code cost_exceeds_burst} (SPEC §3.10; regression case R14a).
 *
 * @param name the policy name (printable ASCII, not blank)
 * @param quota {@code q}, the bucket capacity, &gt; 0 (R14b: capacity 0 is rejected, never "allow all")
 * @param windowSeconds {@code w}, seconds for an empty bucket to refill completely, 1 ..
 *     {@value #MAX_WINDOW_SECONDS}
 * @param unit what one unit counts (requests or content-bytes)
 * @param partitionKey the {@code pk} to emit, or {@code null}
 */
public record BurstPolicy(String name, long quota, long windowSeconds, QuotaUnit unit, String partitionKey)
        implements Policy {

    /** The longest refill period accepted: 366 days. */
    public static final long MAX_WINDOW_SECONDS = 366L * 86_400;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range, or when the
     *     refill rate is too fine to represent (see {@link GcraParams#of(long, long)})
     */
    public BurstPolicy {
        Policy.requireCommon(name, quota, unit);
        if (windowSeconds <= 0 || windowSeconds > MAX_WINDOW_SECONDS) {
            throw new IllegalArgumentException("w: must be in 1.." + MAX_WINDOW_SECONDS + ", was "
                    + windowSeconds + " (policy " + name + ")");
        }
        try {
            GcraParams.of(quota, windowSeconds);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + " (policy " + name + ")", e);
        }
    }

    /** A request-counting burst policy without partition key: {@code q} per {@code w} seconds. */
    public static BurstPolicy of(String name, long quota, long windowSeconds) {
        return new BurstPolicy(name, quota, windowSeconds, QuotaUnit.REQUESTS, null);
    }

    /** The GCRA constants for this policy (computed on each call; {@link Plan} caches them). */
    public GcraParams gcraParams() {
        return GcraParams.of(quota, windowSeconds);
    }
}
