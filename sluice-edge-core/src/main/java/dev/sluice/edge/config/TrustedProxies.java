package dev.sluice.edge.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code listen.trusted-proxies} list: CIDR blocks ({@code 10.0.0.0/8}, {@code 2001:db8::/32}) or single
 * addresses of the proxies in front of the edge. Only a connection from one of them may pass its
 * {@code X-Forwarded-For}, {@code X-Forwarded-Proto}, {@code X-Forwarded-Host} and RFC 7239 {@code Forwarded}
 * fields to the upstream; from any other peer the edge removes them and writes its own, since a client could
 * otherwise claim any address, scheme or host (the default: no proxy is trusted).
 *
 * <p>Immutable and thread-safe; {@link #contains} compares bytes, no lookup.
 */
public final class TrustedProxies {

    /** No peer is trusted: every forwarding field from a client is replaced. */
    public static final TrustedProxies NONE = new TrustedProxies(List.of(), List.of());

    private final List<String> specs;
    private final List<Block> blocks;

    private record Block(byte[] network, int prefixBits) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int full = prefixBits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefixBits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (network[full] & mask);
        }
    }

    private TrustedProxies(List<String> specs, List<Block> blocks) {
        this.specs = specs;
        this.blocks = blocks;
    }

    /**
     * Parses {@code specs}: each an IPv4 or IPv6 literal, optionally {@code /prefix} (0..32 or 0..128).
     *
     * @throws IllegalArgumentException naming the first entry that is not an address or CIDR block (no name is
     *     resolved: a host name is refused)
     */
    public static TrustedProxies of(List<String> specs) {
        List<Block> blocks = new ArrayList<>(specs.size());
        for (String spec : specs) {
            blocks.add(parse(Objects.requireNonNull(spec, "spec").strip()));
        }
        return blocks.isEmpty() ? NONE : new TrustedProxies(List.copyOf(specs), List.copyOf(blocks));
    }

    private static Block parse(String spec) {
        int slash = spec.indexOf('/');
        String host = slash < 0 ? spec : spec.substring(0, slash);
        if (host.isEmpty() || !host.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')) {
            throw new IllegalArgumentException("\"" + spec + "\" is not an IP address or CIDR block");
        }
        byte[] network;
        try {
            network = InetAddress.getByName(host).getAddress(); // a literal: no lookup
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("\"" + spec + "\" is not an IP address or CIDR block");
        }
        int bits = network.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(spec.substring(slash + 1));
            } catch (NumberFormatException e) {
                prefix = -1;
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("\"" + spec + "\": the prefix must be 0.." + bits);
            }
        }
        return new Block(network, prefix);
    }

    /** Whether {@code peer} is one of the trusted proxies; false for null. */
    public boolean contains(InetAddress peer) {
        if (peer == null || blocks.isEmpty()) {
            return false;
        }
        byte[] a = peer.getAddress();
        for (Block b : blocks) {
            if (b.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** Whether no proxy is trusted. */
    public boolean isEmpty() {
        return blocks.isEmpty();
    }

    /** The entries as configured. */
    public List<String> specs() {
        return specs;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TrustedProxies t && t.specs.equals(specs);
    }

    @Override
    public int hashCode() {
        return specs.hashCode();
    }

    @Override
    public String toString() {
        return specs.toString();
    }
}
