package dev.sluice.delivery;

/**
 * A destination's own send rate: a token bucket refilled at {@code perSecond} tokens a second that
 * holds at most {@code burst} tokens (SPEC §1 "burst policy", §6.2). The worker takes one token
 * immediately before every request to the destination.
 *
 * @param perSecond refill rate in requests per second; finite and &gt; 0 (fractions allowed:
 *     {@code 0.5} is one request every two seconds)
 * @param burst bucket capacity in requests; &gt;= 1
 */
public record Rate(double perSecond, int burst) {

    public Rate {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("perSecond must be finite and > 0: " + perSecond);
        }
        if (burst < 1) {
            throw new IllegalArgumentException("burst must be >= 1: " + burst);
        }
    }

    /**
     * The GCRA emission interval in microseconds (one token every this long), rounded up so that
     * the bucket never admits more than {@code perSecond}; at least 1.
     */
    public long intervalMicros() {
        return Math.max(1L, (long) Math.ceil(1_000_000.0 / perSecond));
    }
}
