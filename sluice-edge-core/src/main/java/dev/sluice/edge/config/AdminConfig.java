package dev.sluice.edge.config;

import java.util.Objects;
import java.util.Optional;

/**
 * The {@code admin} section: the separate port that serves {@code GET /metrics} (Prometheus text,
 * SPEC §3.13) and {@code GET /healthz}. Never exposed on the public port.
 *
 * <pre>{@code
 * admin: 127.0.0.1:9090   # default; or a port, or { host, port, token }, or "off"
 * }</pre>
 *
 * <p>The key admin API ({@code /admin/v1/...}) changes who may call the public port, so it asks for
 * {@code Authorization: Bearer <token>} whenever a {@code token} is set, and is off (403) when the port is
 * bound to a non-loopback address without one.
 *
 * @param host the address to bind
 * @param port the port, 0..65535 (0: any free port)
 * @param token the admin API's bearer token, or empty
 */
public record AdminConfig(String host, int port, Optional<String> token) {

    /** The default: {@code 127.0.0.1:9090}. */
    public static final AdminConfig DEFAULT = new AdminConfig("127.0.0.1", 9090);

    public AdminConfig {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: must be in 0..65535, was " + port);
        }
        token = Objects.requireNonNull(token, "token").filter(t -> !t.isEmpty());
    }

    /** No token. */
    public AdminConfig(String host, int port) {
        this(host, port, Optional.empty());
    }

    public AdminConfig withPort(int newPort) {
        return new AdminConfig(host, newPort, token);
    }

    public AdminConfig withToken(Optional<String> newToken) {
        return new AdminConfig(host, port, newToken);
    }

    /**
     * Whether {@link #host} is a loopback address ({@code 127.0.0.0/8}, {@code ::1}, {@code localhost}): only
     * processes on this machine can reach the port.
     */
    public boolean loopback() {
        String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        return h.equalsIgnoreCase("localhost") || h.startsWith("127.") || h.equals("::1")
                || h.equals("0:0:0:0:0:0:0:1");
    }
}
