package dev.sluice.config;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An address as configuration writes it: {@code host:port}, with an IPv6 literal in brackets
 * ({@code [::1]:8080}, RFC 3986 §3.2.2); the host is kept without them.
 *
 * @param host a name or an IP literal, never bracketed
 * @param port 0..65535 (0: any free port)
 */
public record HostPort(String host, int port) {

    private static final Pattern HOST_PORT = Pattern.compile("(.+):(\\d{1,5})");

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("host: must not be empty");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port: must be in 0..65535, was " + port);
        }
    }

    /** {@code host:port} or {@code [v6]:port}; empty when {@code text} is neither or the port is out of range. */
    public static Optional<HostPort> parse(String text) {
        Matcher m = HOST_PORT.matcher(text.strip());
        if (!m.matches() || Integer.parseInt(m.group(2)) > 65_535) {
            return Optional.empty();
        }
        String host = m.group(1);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            return Optional.empty(); // an IPv6 literal needs its brackets: "::1:8080" is ambiguous
        }
        return host.isBlank() ? Optional.empty() : Optional.of(new HostPort(host, Integer.parseInt(m.group(2))));
    }

    /** {@code host:port}, bracketing an IPv6 literal ({@code [::1]:8080}). */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
