package dev.sluice.edge.internal;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the open connections of each client address against {@code listen.max-connections-per-ip}: one
 * address holding thousands of connections (a slowloris, or a leaking client) cannot take every socket the
 * edge has. Memory: one entry per address with an open connection. Thread-safe; one map operation per
 * connection opened or closed, nothing per request.
 */
final class ConnectionsPerAddress {

    private final int max;
    private final ConcurrentHashMap<InetAddress, Integer> open = new ConcurrentHashMap<>();

    /** @param max the most open connections per address; 0 for no cap */
    ConnectionsPerAddress(int max) {
        this.max = max;
    }

    /** Counts a new connection of {@code address}; false (nothing counted) when the address is at its cap. */
    boolean tryOpen(InetAddress address) {
        if (max == 0) {
            return true;
        }
        boolean[] admitted = new boolean[1];
        open.compute(address, (a, n) -> {
            int count = n == null ? 0 : n;
            if (count >= max) {
                return n;
            }
            admitted[0] = true;
            return count + 1;
        });
        return admitted[0];
    }

    /** A connection {@link #tryOpen} counted has closed. */
    void closed(InetAddress address) {
        if (max != 0) {
            open.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
        }
    }

    /** The open connections of {@code address} (tests, metrics). */
    int openConnections(InetAddress address) {
        return open.getOrDefault(address, 0);
    }
}
