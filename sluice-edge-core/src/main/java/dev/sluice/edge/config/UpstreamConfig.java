package dev.sluice.edge.config;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code upstream} section: the one API the edge protects, reached over HTTP/1.1 (in TLS for an
 * {@code https://} URL) through a bounded pool of kept-alive connections.
 *
 * <pre>{@code
 * upstream:
 *   url: http://127.0.0.1:8081   # default; http:// or https://, no path
 *   connect-timeout: 2s          # connecting (or waiting for a pooled connection) longer: 504
 *   response-timeout: 30s        # no response head this long after the request head: 504
 *   pool-size: 64                # connections at most, over all event loops
 *   ca-file: internal-ca.pem     # https: trust these PEM certificates instead of the JDK's default ones
 *   verify-certificate: true     # https: check the upstream's certificate chain and host name (RFC 9110 §4.3.4)
 * }</pre>
 *
 * <p>For {@code https://} the edge sends the URL's host as SNI (RFC 6066 §3; not for an IP address) and,
 * unless {@code verify-certificate: false}, refuses a certificate that does not chain to a trusted one or
 * does not name the host (the exchange gets 502).
 *
 * @param url {@code http://host:port} or {@code https://host:port}; a path or query is refused
 * @param connectTimeout the bound on connecting or waiting for a free pooled connection
 * @param responseTimeout the bound from writing the request head to receiving the response head
 * @param poolSize the most connections open to the upstream at once, ≥ 1
 * @param caFile PEM certificates to trust for an {@code https://} upstream instead of the JDK's default trust
 *     store; empty for the default
 * @param verifyCertificate whether an {@code https://} upstream's certificate is checked (chain and host name)
 */
public record UpstreamConfig(URI url, Duration connectTimeout, Duration responseTimeout, int poolSize,
        Optional<Path> caFile, boolean verifyCertificate) {

    /** The defaults: {@code http://127.0.0.1:8081}, 2 s, 30 s, 64 connections. */
    public static final UpstreamConfig DEFAULT = new UpstreamConfig(URI.create("http://127.0.0.1:8081"),
            Duration.ofSeconds(2), Duration.ofSeconds(30), 64);

    /** @throws IllegalArgumentException naming the field when a value is unusable */
    public UpstreamConfig {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(responseTimeout, "responseTimeout");
        Objects.requireNonNull(caFile, "caFile");
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

    /** An upstream over plain HTTP or HTTPS with the default trust and verification on. */
    public UpstreamConfig(URI url, Duration connectTimeout, Duration responseTimeout, int poolSize) {
        this(url, connectTimeout, responseTimeout, poolSize, Optional.empty(), true);
    }

    /**
     * @throws IllegalArgumentException unless {@code url} is {@code http://host[:port]} or
     *     {@code https://host[:port]} (an empty path or {@code /} is accepted)
     */
    public static void checkUrl(URI url) {
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("url: must be an http:// or https:// URL, was \"" + url + "\"");
        }
        if (url.getHost() == null) {
            throw new IllegalArgumentException("url: needs a host, was \"" + url + "\"");
        }
        String path = url.getRawPath();
        if ((path != null && !path.isEmpty() && !path.equals("/")) || url.getRawQuery() != null
                || url.getRawFragment() != null || url.getRawUserInfo() != null) {
            throw new IllegalArgumentException("url: must be http(s)://host:port without path, query or user, was \""
                    + url + "\"");
        }
    }

    /** Whether the upstream is reached in TLS ({@code https://}). */
    public boolean tls() {
        return url.getScheme().equalsIgnoreCase("https");
    }

    private int defaultPort() {
        return tls() ? 443 : 80;
    }

    /** The port to connect to (80, or 443 for {@code https://}, when the URL has none). */
    public int port() {
        return url.getPort() < 0 ? defaultPort() : url.getPort();
    }

    /** The host to connect to. */
    public String host() {
        return url.getHost();
    }

    /** The {@code Host} header value sent upstream: {@code host:port}, or {@code host} for the scheme's default port. */
    public String authority() {
        return url.getPort() < 0 || url.getPort() == defaultPort() ? url.getHost()
                : url.getHost() + ":" + url.getPort();
    }

    public UpstreamConfig withUrl(URI newUrl) {
        return new UpstreamConfig(newUrl, connectTimeout, responseTimeout, poolSize, caFile, verifyCertificate);
    }
}
