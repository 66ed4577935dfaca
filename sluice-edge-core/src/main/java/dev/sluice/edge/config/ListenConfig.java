package dev.sluice.edge.config;

import java.time.Duration;
import java.util.Objects;

/**
 * The {@code listen} section: where the edge accepts HTTP/1.1 and h2c (prior knowledge) on one port,
 * and the limits that protect it from bad input.
 *
 * <pre>{@code
 * listen: 0.0.0.0:8080          # or just 8080, or the mapping below
 * listen:
 *   host: 0.0.0.0
 *   port: 8080                  # 0 picks a free port (tests)
 *   idle-timeout: 60s           # a connection with no traffic either way is closed
 *   max-header-count: 100       # more header fields: 431
 *   max-header-bytes: 16384     # a larger header section: 431
 *   max-request-line-bytes: 8192 # a longer request line: 414
 *   drain-bound-bytes: 65536    # a rejected request's body up to this size is read and discarded
 *                               # (the connection is kept); a larger one closes the connection
 *   request-head-timeout: 10s   # a request head (HTTP/2: a header block) must be complete this long after
 *                               # its first byte: 408 and close (slowloris)
 *   body-idle-timeout: 30s      # a forwarded request body that moves no byte for this long: 408 (the
 *                               # client stalled) or 504 (the upstream stopped reading)
 *   max-connections-per-ip: 1024 # open connections of one client address; beyond: refused (0: no cap)
 *   transport: auto             # auto | nio | epoll
 *   io-threads: 0               # 0: one per core
 * }</pre>
 *
 * @param host the address to bind ({@code 0.0.0.0} for all)
 * @param port the port, 0..65535 (0: any free port)
 * @param idleTimeout a client connection without reads or writes for this long is closed
 * @param maxHeaderCount the most header fields a request may carry (SPEC bad input: 431 beyond)
 * @param maxHeaderBytes the largest header section in bytes (431 beyond)
 * @param maxRequestLineBytes the longest request line in bytes (414 beyond)
 * @param drainBoundBytes the largest announced body of a rejected HTTP/1.1 request that is read and
 *     discarded to keep the connection; beyond it the edge answers and closes (SPEC §3.1)
 * @param transport the socket transport
 * @param ioThreads event-loop threads, 0 for one per available processor
 * @param requestHeadTimeout the longest time from a request head's first byte to its end (HTTP/2: from a
 *     frame's or header block's first byte to its end); bytes arriving do not extend it (RFC 9110 §15.5.9:
 *     408 and close)
 * @param bodyIdleTimeout the longest time a forwarded request body may move no byte; the upstream's
 *     response timeout starts only when the whole body was sent
 * @param maxConnectionsPerIp the most open connections from one client address; 0 for no cap
 */
public record ListenConfig(String host, int port, Duration idleTimeout, int maxHeaderCount, int maxHeaderBytes,
        int maxRequestLineBytes, long drainBoundBytes, Transport transport, int ioThreads,
        Duration requestHeadTimeout, Duration bodyIdleTimeout, int maxConnectionsPerIp) {

    /** Which socket implementation the edge uses. */
    public enum Transport {
        /** Linux epoll when its native library loads, else NIO. */
        AUTO,
        /** The JDK's NIO selector. */
        NIO,
        /** Linux epoll; start fails when it cannot load. */
        EPOLL
    }

    /** The default {@link #requestHeadTimeout()}: 10 s. */
    public static final Duration DEFAULT_REQUEST_HEAD_TIMEOUT = Duration.ofSeconds(10);
    /** The default {@link #bodyIdleTimeout()}: 30 s. */
    public static final Duration DEFAULT_BODY_IDLE_TIMEOUT = Duration.ofSeconds(30);
    /**
     * The default {@link #maxConnectionsPerIp()}: 1024. Room for one busy client host or a NAT of many (the
     * JDK client of {@code SheddingLoadHttpTest}, 600 requests a second at 100 ms, held up to 450 at once),
     * not for a flood of held connections.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_IP = 1024;

    /**
     * The defaults: {@code 0.0.0.0:8080}, 60 s idle, 100 headers, 16 KiB, 8 KiB, 64 KiB drain, 10 s for a
     * head, 30 s of body idle, 1024 connections per address.
     */
    public static final ListenConfig DEFAULT =
            new ListenConfig("0.0.0.0", 8080, Duration.ofSeconds(60), 100, 16 * 1024, 8 * 1024, 64 * 1024,
                    Transport.AUTO, 0);

    public ListenConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(requestHeadTimeout, "requestHeadTimeout");
        Objects.requireNonNull(bodyIdleTimeout, "bodyIdleTimeout");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: must be in 0..65535, was " + port);
        }
        if (requestHeadTimeout.isNegative() || requestHeadTimeout.isZero()
                || bodyIdleTimeout.isNegative() || bodyIdleTimeout.isZero()) {
            throw new IllegalArgumentException("request-head-timeout and body-idle-timeout must be > 0");
        }
        if (maxConnectionsPerIp < 0) {
            throw new IllegalArgumentException("max-connections-per-ip: must be >= 0, was " + maxConnectionsPerIp);
        }
    }

    /** The section of earlier releases: the head, body and per-address limits at their defaults. */
    public ListenConfig(String host, int port, Duration idleTimeout, int maxHeaderCount, int maxHeaderBytes,
            int maxRequestLineBytes, long drainBoundBytes, Transport transport, int ioThreads) {
        this(host, port, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes, drainBoundBytes,
                transport, ioThreads, DEFAULT_REQUEST_HEAD_TIMEOUT, DEFAULT_BODY_IDLE_TIMEOUT,
                DEFAULT_MAX_CONNECTIONS_PER_IP);
    }

    /** This section with another port (0: any free port). */
    public ListenConfig withPort(int newPort) {
        return new ListenConfig(host, newPort, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes,
                drainBoundBytes, transport, ioThreads, requestHeadTimeout, bodyIdleTimeout, maxConnectionsPerIp);
    }

    /** This section with another bind address. */
    public ListenConfig withHost(String newHost) {
        return new ListenConfig(newHost, port, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes,
                drainBoundBytes, transport, ioThreads, requestHeadTimeout, bodyIdleTimeout, maxConnectionsPerIp);
    }
}
