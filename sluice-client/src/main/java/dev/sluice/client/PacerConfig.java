package dev.sluice.client;

/**
 * The client-side pacer (SPEC §4.6): a token bucket that every call passes just before it starts,
 * so a client stays under the limit instead of bouncing off it.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code documentedPerSecond}</td><td>0 = unknown</td><td>the API's documented rate; until
 *       headers arrive the pacer refills at {@code paceFraction} of it</td></tr>
 *   <tr><td>{@code documentedBurst}</td><td>0 = unknown</td><td>the API's burst; the bucket holds
 *       {@code paceFraction} of it, and a call may cost up to all of it</td></tr>
 *   <tr><td>{@code paceFraction}</td><td>0.9</td><td>pace a little under the documented number (SPEC §4.6): the
 *       refill rate <em>and</em> the burst, documented or read from the headers; the burst margin absorbs
 *       first calls that reach the server late (new connections), which a rate margin alone cannot</td></tr>
 *   <tr><td>{@code lowRemainingFraction}</td><td>0.1</td><td>when a policy's {@code r} falls below this share of
 *       {@code q}, the remaining {@code r} are spread over {@code t} (SPEC §4.6)</td></tr>
 *   <tr><td>{@code followHeaders}</td><td>true</td><td>update from each response's policies (ignored when the
 *       response was cached, SPEC §2.5)</td></tr>
 * </table>
 *
 * <p>With nothing documented and no headers seen, the pacer lets calls through (it still empties and
 * pauses on a 429). The concurrency limit of SPEC §4.6 is {@link AdmissionConfig#maxConcurrent()}:
 * one number, enforced where calls wait.
 */
public record PacerConfig(
        double documentedPerSecond,
        double documentedBurst,
        double paceFraction,
        double lowRemainingFraction,
        boolean followHeaders) {

    public PacerConfig {
        if (!(documentedPerSecond >= 0) || Double.isInfinite(documentedPerSecond)) {
            throw new IllegalArgumentException("documentedPerSecond must be >= 0 and finite: " + documentedPerSecond);
        }
        if (!(documentedBurst >= 0) || Double.isInfinite(documentedBurst)) {
            throw new IllegalArgumentException("documentedBurst must be >= 0 and finite: " + documentedBurst);
        }
        if (!(paceFraction > 0) || paceFraction > 1) {
            throw new IllegalArgumentException("paceFraction must be in (0, 1]: " + paceFraction);
        }
        if (!(lowRemainingFraction >= 0) || lowRemainingFraction >= 1) {
            throw new IllegalArgumentException("lowRemainingFraction must be in [0, 1): " + lowRemainingFraction);
        }
    }

    /** Nothing documented: follow the headers, pace at 90 %. */
    public static PacerConfig defaults() {
        return new PacerConfig(0, 0, 0.9, 0.1, true);
    }

    /**
     * A documented limit of {@code perSecond} with a burst of {@code burst}, paced at 90 % of both:
     * {@code documented(10, 20)} refills 9 tokens a second into a bucket of 18.
     *
     * @throws IllegalArgumentException if either is not positive (regression case R14b: a zero
     *     burst must not silently mean "allow all")
     */
    public static PacerConfig documented(double perSecond, double burst) {
        if (!(perSecond > 0) || !(burst >= 1)) {
            throw new IllegalArgumentException(
                    "a documented limit needs perSecond > 0 and burst >= 1: " + perSecond + ", " + burst);
        }
        return new PacerConfig(perSecond, burst, 0.9, 0.1, true);
    }

    /** This configuration pacing at {@code fraction} of the documented rate. */
    public PacerConfig withPaceFraction(double fraction) {
        return new PacerConfig(documentedPerSecond, documentedBurst, fraction, lowRemainingFraction, followHeaders);
    }

    /** This configuration with header following switched on or off. */
    public PacerConfig withFollowHeaders(boolean follow) {
        return new PacerConfig(documentedPerSecond, documentedBurst, paceFraction, lowRemainingFraction, follow);
    }
}
