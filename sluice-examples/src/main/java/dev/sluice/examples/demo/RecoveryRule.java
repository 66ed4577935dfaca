package dev.sluice.examples.demo;

/**
 * The demo's model of how Shiplane gets out of an overload: the blip (its cause) lasts a fixed time,
 * and after it Shiplane is still overloaded until, for {@code seconds} whole seconds in a row, the
 * requests that got past the edge's limits toward it stayed at or under {@code capacityPerSecond}.
 * That is the sustaining effect of a metastable failure (the incident of the reference documents: a
 * 20-minute blip that retries held down for four hours): a backend knocked over comes back only when
 * the load offered to it falls to what it can take while it recovers, so a retry storm lengthens the
 * outage and a client that backs off shortens it. Requests the edge answered itself with a 429 never
 * reach Shiplane and do not count; a request the edge admitted counts whether Shiplane or the edge's
 * full connection pool then answered it 503 (it was Shiplane's load either way).
 *
 * <p>Feed it the count of each whole second from the blip's end on ({@link #second(long)}), in order.
 * Not thread-safe (the demo's timeline thread owns it).
 */
final class RecoveryRule {

    private final double capacityPerSecond;
    private final int seconds;
    private int quiet;
    private boolean recovered;

    /**
     * @param capacityPerSecond requests per second Shiplane takes while it recovers (&gt; 0; infinite:
     *     back as soon as the blip ends)
     * @param seconds whole seconds in a row at or under it (&gt;= 1)
     * @throws IllegalArgumentException if either is out of range
     */
    RecoveryRule(double capacityPerSecond, int seconds) {
        if (!(capacityPerSecond > 0)) {
            throw new IllegalArgumentException("capacityPerSecond must be > 0: " + capacityPerSecond);
        }
        if (seconds < 1) {
            throw new IllegalArgumentException("seconds must be >= 1: " + seconds);
        }
        this.capacityPerSecond = capacityPerSecond;
        this.seconds = seconds;
        this.recovered = Double.isInfinite(capacityPerSecond);
    }

    /**
     * Counts the next whole second after the blip: {@code requestsPastLimits} requests got past the
     * edge's limits in it. Returns whether Shiplane has recovered (it stays recovered).
     */
    boolean second(long requestsPastLimits) {
        if (!recovered) {
            quiet = requestsPastLimits <= capacityPerSecond ? quiet + 1 : 0;
            recovered = quiet >= seconds;
        }
        return recovered;
    }

    /** Whether Shiplane has recovered. */
    boolean recovered() {
        return recovered;
    }

    double capacityPerSecond() {
        return capacityPerSecond;
    }

    int seconds() {
        return seconds;
    }
}
