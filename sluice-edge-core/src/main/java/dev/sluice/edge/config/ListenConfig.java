package dev.sluice.edge.config;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code listen} section: where the edge accepts HTTP/1.1 and h2c (prior knowledge) on one port, or
 * with {@code tls} HTTPS with HTTP/2 or HTTP/1.1 by ALPN, and the limits that protect it from bad input.
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
 *   max-connections: auto       # open client connections in all; beyond: 503 and close (auto: from the
 *                               # process's descriptor limit; 0: no cap)
 *   min-body-rate: 240          # bytes per second a forwarded body must average over each window
 *   min-body-rate-window: 5s    # ... below it: 408, as for a stall (0 for min-body-rate: off)
 *   write-timeout: 30s          # a client that takes no response byte for this long is closed (HTTP/2: reset)
 *   max-upstream-streams-per-connection: 8 # HTTP/2 streams of one connection holding or awaiting an upstream
 *                               # connection; the others wait their turn
 *   trusted-proxies: []         # peers (CIDR) whose X-Forwarded-* / Forwarded fields are kept
 *   transport: auto             # auto | nio | epoll
 *   io-threads: 0               # 0: one per core
 *   tls:                        # absent: plain HTTP/1.1 and h2c; see TlsConfig
 *     certificate: cert.pem
 *     private-key: key.pem
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
 * @param maxConnections the most open client connections in all (beyond: a fixed 503 and close, counted, one
 *     log line a minute); 0 for no cap. The default ({@link #autoMaxConnections()}) stays below the
 *     process's file-descriptor limit, so accepting never fails with "Too many open files"
 * @param minBodyRateBytesPerSecond the least a forwarded request body must average over each
 *     {@code minBodyRateWindow} while the edge reads it (a window in which the upstream took no more is not
 *     counted); below it: 408, as a stall. 0: off. Unlike {@code bodyIdleTimeout}, a byte now and then does
 *     not restart it
 * @param minBodyRateWindow the window of {@code minBodyRateBytesPerSecond}, &gt; 0
 * @param writeTimeout the longest a client connection (HTTP/2: a stream) may hold response bytes the client
 *     does not take (its channel stays unwritable): it is closed (HTTP/2: the stream is reset) and what it held
 *     (an upstream connection, a shedder slot) is freed
 * @param maxUpstreamStreamsPerConnection the most HTTP/2 streams of one connection that hold or wait for an
 *     upstream connection at once; further admitted streams wait for one of them to end (bounded by
 *     {@code upstream.connect-timeout} and the request's deadline), so one connection cannot take the pool
 * @param trustedProxies the peers whose forwarding fields ({@code X-Forwarded-For/-Proto/-Host},
 *     {@code Forwarded}) are passed on; from any other peer they are removed and replaced by the edge's own
 * @param tls HTTPS on this listener, or empty for plain HTTP/1.1 and h2c
 */
public record ListenConfig(String host, int port, Duration idleTimeout, int maxHeaderCount, int maxHeaderBytes,
        int maxRequestLineBytes, long drainBoundBytes, Transport transport, int ioThreads,
        Duration requestHeadTimeout, Duration bodyIdleTimeout, int maxConnectionsPerIp, int maxConnections,
        long minBodyRateBytesPerSecond, Duration minBodyRateWindow, Duration writeTimeout,
        int maxUpstreamStreamsPerConnection, TrustedProxies trustedProxies, Optional<TlsConfig> tls) {

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
    /** The default {@link #minBodyRateBytesPerSecond()}: 240 bytes/s (a 2G modem's pace; ASP.NET Kestrel's too). */
    public static final long DEFAULT_MIN_BODY_RATE = 240;
    /** The default {@link #minBodyRateWindow()}: 5 s. */
    public static final Duration DEFAULT_MIN_BODY_RATE_WINDOW = Duration.ofSeconds(5);
    /** The default {@link #writeTimeout()}: 30 s. */
    public static final Duration DEFAULT_WRITE_TIMEOUT = Duration.ofSeconds(30);
    /** The default {@link #maxUpstreamStreamsPerConnection()}: 8 (a quarter of one event loop's default pool). */
    public static final int DEFAULT_MAX_UPSTREAM_STREAMS_PER_CONNECTION = 8;
    /** Descriptors kept free of client connections: the upstream pool, the admin port, logs, the JDK's own. */
    static final int RESERVED_DESCRIPTORS = 1_024;

    /**
     * The default {@link #maxConnections()}: the process's file-descriptor limit less
     * {@value #RESERVED_DESCRIPTORS} (upstream connections, files, the admin port), at least 64; 10,000 when the
     * limit cannot be read (not a Unix JVM).
     */
    public static int autoMaxConnections() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            return autoMaxConnections(os.getMaxFileDescriptorCount());
        }
        return 10_000;
    }

    /** {@link #autoMaxConnections()} for a descriptor limit of {@code maxDescriptors}. */
    static int autoMaxConnections(long maxDescriptors) {
        return (int) Math.max(64, Math.min(1_000_000, maxDescriptors - RESERVED_DESCRIPTORS));
    }

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
        Objects.requireNonNull(minBodyRateWindow, "minBodyRateWindow");
        Objects.requireNonNull(writeTimeout, "writeTimeout");
        Objects.requireNonNull(trustedProxies, "trustedProxies");
        Objects.requireNonNull(tls, "tls");
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
        if (maxConnections < 0 || minBodyRateBytesPerSecond < 0) {
            throw new IllegalArgumentException("max-connections and min-body-rate must be >= 0");
        }
        if (minBodyRateWindow.isNegative() || minBodyRateWindow.isZero() || writeTimeout.isNegative()
                || writeTimeout.isZero()) {
            throw new IllegalArgumentException("min-body-rate-window and write-timeout must be > 0");
        }
        if (maxUpstreamStreamsPerConnection < 1) {
            throw new IllegalArgumentException("max-upstream-streams-per-connection: must be >= 1, was "
                    + maxUpstreamStreamsPerConnection);
        }
    }

    /** The section without TLS (plain HTTP/1.1 and h2c). */
    public ListenConfig(String host, int port, Duration idleTimeout, int maxHeaderCount, int maxHeaderBytes,
            int maxRequestLineBytes, long drainBoundBytes, Transport transport, int ioThreads,
            Duration requestHeadTimeout, Duration bodyIdleTimeout, int maxConnectionsPerIp, int maxConnections,
            long minBodyRateBytesPerSecond, Duration minBodyRateWindow, Duration writeTimeout,
            int maxUpstreamStreamsPerConnection, TrustedProxies trustedProxies) {
        this(host, port, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes, drainBoundBytes, transport,
                ioThreads, requestHeadTimeout, bodyIdleTimeout, maxConnectionsPerIp, maxConnections,
                minBodyRateBytesPerSecond, minBodyRateWindow, writeTimeout, maxUpstreamStreamsPerConnection,
                trustedProxies, Optional.empty());
    }

    /**
     * The address, idle timeout, head bounds, drain bound, transport and event loops; every other bound at
     * its default (head and body timeouts, connections per address and in all, body rate, write timeout,
     * upstream streams), no trusted proxies, no TLS.
     */
    public ListenConfig(String host, int port, Duration idleTimeout, int maxHeaderCount, int maxHeaderBytes,
            int maxRequestLineBytes, long drainBoundBytes, Transport transport, int ioThreads) {
        this(host, port, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes, drainBoundBytes, transport,
                ioThreads, DEFAULT_REQUEST_HEAD_TIMEOUT, DEFAULT_BODY_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS_PER_IP,
                autoMaxConnections(), DEFAULT_MIN_BODY_RATE, DEFAULT_MIN_BODY_RATE_WINDOW, DEFAULT_WRITE_TIMEOUT,
                DEFAULT_MAX_UPSTREAM_STREAMS_PER_CONNECTION, TrustedProxies.NONE);
    }

    /** This section with another port (0: any free port). */
    public ListenConfig withPort(int newPort) {
        return new ListenConfig(host, newPort, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes,
                drainBoundBytes, transport, ioThreads, requestHeadTimeout, bodyIdleTimeout, maxConnectionsPerIp,
                maxConnections, minBodyRateBytesPerSecond, minBodyRateWindow, writeTimeout,
                maxUpstreamStreamsPerConnection, trustedProxies, tls);
    }

    /** This section with another bind address. */
    public ListenConfig withHost(String newHost) {
        return new ListenConfig(newHost, port, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes,
                drainBoundBytes, transport, ioThreads, requestHeadTimeout, bodyIdleTimeout, maxConnectionsPerIp,
                maxConnections, minBodyRateBytesPerSecond, minBodyRateWindow, writeTimeout,
                maxUpstreamStreamsPerConnection, trustedProxies, tls);
    }

    /** This section serving HTTPS with {@code newTls} (empty: plain HTTP/1.1 and h2c). */
    public ListenConfig withTls(Optional<TlsConfig> newTls) {
        return new ListenConfig(host, port, idleTimeout, maxHeaderCount, maxHeaderBytes, maxRequestLineBytes,
                drainBoundBytes, transport, ioThreads, requestHeadTimeout, bodyIdleTimeout, maxConnectionsPerIp,
                maxConnections, minBodyRateBytesPerSecond, minBodyRateWindow, writeTimeout,
                maxUpstreamStreamsPerConnection, trustedProxies, newTls);
    }
}
