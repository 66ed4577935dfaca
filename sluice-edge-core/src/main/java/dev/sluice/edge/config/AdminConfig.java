package dev.sluice.edge.config;

import java.util.Objects;

/**
 * The {@code admin} section: the separate port that serves {@code GET /metrics} (Prometheus text,
 * SPEC §3.13) and {@code GET /healthz}. Never exposed on the public port.
 *
 * <pre>{@code
 * admin: 127.0.0.1:9090   # default; or a port, or { host, port }, or "off"
 * }</pre>
 *
 * @param host the address to bind
 * @param port the port, 0..65535 (0: any free port)
 */
public record AdminConfig(String host, int port) {

    /** The default: {@code 127.0.0.1:9090}. */
    public static final AdminConfig DEFAULT = new AdminConfig("127.0.0.1", 9090);

    public AdminConfig {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: must be in 0..65535, was " + port);
        }
    }

    public AdminConfig withPort(int newPort) {
        return new AdminConfig(host, newPort);
    }
}
