package dev.sluice.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link RedisEndpoint} connects and decides that Redis is down or back (SPEC §3.14).
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@code uri}</td><td>—</td><td>a Lettuce Redis URI, e.g. {@code redis://127.0.0.1:6379/0}</td></tr>
 *   <tr><td>{@code failureThreshold}</td><td>3</td><td>consecutive failed or timed-out commands that mark
 *       Redis down (then no command is sent until a probe answers)</td></tr>
 *   <tr><td>{@code probeInterval}</td><td>250 ms</td><td>while down, one {@code PING} (or one connection
 *       attempt) per interval, never more than one in flight</td></tr>
 *   <tr><td>{@code probeTimeout}</td><td>250 ms</td><td>how long a probe waits for {@code PONG}</td></tr>
 *   <tr><td>{@code connectTimeout}</td><td>1 s</td><td>TCP connect timeout of (re)connections</td></tr>
 *   <tr><td>{@code maxReconnectDelay}</td><td>1 s</td><td>ceiling of Lettuce's exponential reconnect
 *       back-off, so a restarted Redis is found within about a second</td></tr>
 *   <tr><td>{@code requestQueueSize}</td><td>65,536</td><td>commands Lettuce may hold unanswered; beyond
 *       it a command fails at once instead of queueing (a paused Redis cannot fill the heap)</td></tr>
 * </table>
 *
 */
public record RedisEndpointConfig(
        String uri,
        int failureThreshold,
        Duration probeInterval,
        Duration probeTimeout,
        Duration connectTimeout,
        Duration maxReconnectDelay,
        int requestQueueSize) {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a value is out of range
     */
    public RedisEndpointConfig {
        Objects.requireNonNull(uri, "uri");
        if (failureThreshold < 1) {
            throw new IllegalArgumentException("failureThreshold: must be >= 1, was " + failureThreshold);
        }
        requirePositive("probeInterval", probeInterval);
        requirePositive("probeTimeout", probeTimeout);
        requirePositive("connectTimeout", connectTimeout);
        requirePositive("maxReconnectDelay", maxReconnectDelay);
        if (requestQueueSize < 1) {
            throw new IllegalArgumentException("requestQueueSize: must be >= 1, was " + requestQueueSize);
        }
    }

    /** The defaults of the table above for {@code uri}. */
    public static RedisEndpointConfig of(String uri) {
        return new RedisEndpointConfig(uri, 3, Duration.ofMillis(250), Duration.ofMillis(250), Duration.ofSeconds(1),
                Duration.ofSeconds(1), 65_536);
    }

    /** This configuration with another failure threshold. */
    public RedisEndpointConfig withFailureThreshold(int threshold) {
        return new RedisEndpointConfig(uri, threshold, probeInterval, probeTimeout, connectTimeout, maxReconnectDelay,
                requestQueueSize);
    }

    /** This configuration with another probe interval and probe timeout. */
    public RedisEndpointConfig withProbe(Duration interval, Duration timeout) {
        return new RedisEndpointConfig(uri, failureThreshold, interval, timeout, connectTimeout, maxReconnectDelay,
                requestQueueSize);
    }

    static void requirePositive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + ": must be > 0, was " + d);
        }
    }
}
