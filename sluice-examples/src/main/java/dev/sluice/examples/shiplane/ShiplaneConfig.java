package dev.sluice.examples.shiplane;

import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * How a {@link ShiplaneServer} runs. Immutable; start from {@link #defaults()}.
 *
 * @param host the address to bind (default {@code 127.0.0.1}: the sample API is for loopback)
 * @param port the TCP port, or 0 for a free one chosen by the system (default 8081, the
 *     upstream of {@code examples/shiplane.yaml})
 * @param latency the mean time a {@code /v1/*} answer takes (default 20 ms)
 * @param latencyJitter each answer takes {@code latency ± latencyJitter}, uniformly (default 5 ms)
 * @param blipRetryAfterSeconds the {@code Retry-After} on a 503 during a blip (default 1 s)
 * @param blipSlowShare the share of {@code /v1/*} requests that a blip serves slowly instead of
 *     answering 503: an overloaded API both fails and stalls (0..1, default 0: every answer is 503)
 * @param blipSlowLatency how long such a slow answer takes; it is a normal answer (a label is
 *     bought), only late, so a client whose attempt timeout is shorter does not know it succeeded
 *     (default 3 s)
 * @param random the source of latency jitter, label tracking numbers and quote prices; it is
 *     used under a lock, so any generator will do (default a {@link SplittableRandom} seeded 42)
 */
public record ShiplaneConfig(
        String host,
        int port,
        Duration latency,
        Duration latencyJitter,
        int blipRetryAfterSeconds,
        double blipSlowShare,
        Duration blipSlowLatency,
        RandomGenerator random) {

    /** The port of the upstream in {@code examples/shiplane.yaml}. */
    public static final int DEFAULT_PORT = 8081;

    public ShiplaneConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(latencyJitter, "latencyJitter");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(blipSlowLatency, "blipSlowLatency");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be 0..65535: " + port);
        }
        if (latency.isNegative() || latencyJitter.isNegative()) {
            throw new IllegalArgumentException("latency and its jitter must not be negative");
        }
        if (latencyJitter.compareTo(latency) > 0) {
            throw new IllegalArgumentException("latency jitter " + latencyJitter + " exceeds the latency " + latency);
        }
        if (blipRetryAfterSeconds < 0) {
            throw new IllegalArgumentException("blipRetryAfterSeconds must be >= 0: " + blipRetryAfterSeconds);
        }
        if (!(blipSlowShare >= 0 && blipSlowShare <= 1)) {
            throw new IllegalArgumentException("blipSlowShare must be in [0, 1]: " + blipSlowShare);
        }
        if (blipSlowLatency.isNegative()) {
            throw new IllegalArgumentException("blipSlowLatency must not be negative: " + blipSlowLatency);
        }
    }

    /** 127.0.0.1:8081, 20 ms ± 5 ms, a blip answers every request 503 with Retry-After 1, seed 42. */
    public static ShiplaneConfig defaults() {
        return new ShiplaneConfig("127.0.0.1", DEFAULT_PORT, Duration.ofMillis(20), Duration.ofMillis(5), 1,
                0, Duration.ofSeconds(3), new SplittableRandom(42));
    }

    public ShiplaneConfig withHost(String h) {
        return new ShiplaneConfig(h, port, latency, latencyJitter, blipRetryAfterSeconds, blipSlowShare, blipSlowLatency,
                random);
    }

    public ShiplaneConfig withPort(int p) {
        return new ShiplaneConfig(host, p, latency, latencyJitter, blipRetryAfterSeconds, blipSlowShare, blipSlowLatency,
                random);
    }

    public ShiplaneConfig withLatency(Duration mean, Duration jitter) {
        return new ShiplaneConfig(host, port, mean, jitter, blipRetryAfterSeconds, blipSlowShare, blipSlowLatency,
                random);
    }

    public ShiplaneConfig withRandom(RandomGenerator r) {
        return new ShiplaneConfig(host, port, latency, latencyJitter, blipRetryAfterSeconds, blipSlowShare, blipSlowLatency,
                r);
    }

    /**
     * A blip that serves {@code share} of the requests after {@code latency} (a normal answer, late)
     * and answers the rest 503.
     */
    public ShiplaneConfig withSlowBlip(double share, Duration latency) {
        return new ShiplaneConfig(host, port, this.latency, latencyJitter, blipRetryAfterSeconds, share, latency, random);
    }
}
