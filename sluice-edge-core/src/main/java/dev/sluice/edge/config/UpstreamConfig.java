package dev.sluice.edge.config;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * The {@code upstream} section: the one API the edge protects, reached over HTTP/1.1 through a
 * bounded pool of kept-alive connections.
 *
 * <pre>{@code
 * upstream:
 *   url: http://127.0.0.1:8081   # default; http only, no path
 *   connect-timeout: 2s          # connecting (or waiting for a pooled connection) longer: 504
 *   response-timeout: 30s        # no response head this long after the request head: 504
 *   pool-size: 64                # connections at most, over all event loops
 * }</pre>
 *
 * @param url {@code http://host:port}; a path or query is refused
 * @param connectTimeout the bound on connecting or waiting for a free pooled connection
 * @param responseTimeout the bound from writing the request head to receiving the response head
 * @param poolSize the most connections open to the upstream at once, ≥ 1
 */
public record UpstreamConfig(URI url, Duration connectTimeout, Duration responseTimeout, int poolSize) {

    /** The defaults: {@code http://127.0.0.1:8081}, 2 s, 30 s, 64 connections. */
    public static final UpstreamConfig DEFAULT = new UpstreamConfig(URI.create("http://127.0.0.1:8081"),
            Duration.ofSeconds(2), Duration.ofSeconds(30), 64);

    /** @throws IllegalArgumentException naming the field when a value is unusable */
    public UpstreamConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(responseTimeout, "responseTimeout");
        checkUrl(url);
        if (connectTimeout.isNegative() || connectTimeout.isZero()) {
            throw new IllegalArgumentException("connect-timeout: must be > 0, was " + connectTimeout);
        }
        if (responseTimeout.isNegative() || responseTimeout.isZero()) {
            throw new IllegalArgumentException("response-timeout: must be > 0, was " + responseTimeout);
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("pool-size: must be >= 1, was " + poolSize);
        }
    }

    /**
     * @throws IllegalArgumentException unless {@code url} is {@code http://host[:port]} (an empty
     *     path or {@code /} is accepted)
     */
    public static void checkUrl(URI url) {
        if (url.getScheme() == null || !url.getScheme().toLowerCase(Locale.ROOT).equals("http")) {
            throw new IllegalArgumentException("url: must be an http:// URL, was \"" + url + "\"");
        }
        if (url.getHost() == null) {
            throw new IllegalArgumentException("url: needs a host, was \"" + url + "\"");
        }
        String path = url.getRawPath();
        if ((path != null && !path.isEmpty() && !path.equals("/")) || url.getRawQuery() != null
                || url.getRawFragment() != null || url.getRawUserInfo() != null) {
            throw new IllegalArgumentException("url: must be http://host:port without path, query or user, was \""
                    + url + "\"");
        }
    }

    /** The port to connect to (80 when the URL has none). */
    public int port() {
        return url.getPort() < 0 ? 80 : url.getPort();
    }

    /** The host to connect to. */
    public String host() {
        return url.getHost();
    }

    /** The {@code Host} header value sent upstream: {@code host:port}, or {@code host} for port 80. */
    public String authority() {
        return url.getPort() < 0 || url.getPort() == 80 ? url.getHost() : url.getHost() + ":" + url.getPort();
    }

    public UpstreamConfig withUrl(URI newUrl) {
        return new UpstreamConfig(newUrl, connectTimeout, responseTimeout, poolSize);
    }
}
