package dev.sluice.redis;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Where the stores' Redis is and how it is deployed, read from one URL:
 *
 * <table>
 *   <caption>URL forms</caption>
 *   <tr><th>form</th><th>deployment</th></tr>
 *   <tr><td>{@code redis://[[user:]password@]host[:port][/database]}, {@code rediss://…}</td>
 *       <td>{@link Topology#STANDALONE}: one server (or a primary whose address does not change)</td></tr>
 *   <tr><td>{@code redis-cluster://[[user:]password@]host[:port][,host[:port]…]}, {@code rediss-cluster://…}</td>
 *       <td>{@link Topology#CLUSTER}: a Redis Cluster; the hosts are seeds (any one that answers gives the
 *       whole topology); port 6379 by default; database 0 only</td></tr>
 *   <tr><td>{@code redis-sentinel://[[user:]password@]host[:port][,host[:port]…][/database]#master},
 *       {@code rediss-sentinel://…}</td>
 *       <td>{@link Topology#SENTINEL}: the primary that these Sentinels (port 26379 by default) know as
 *       {@code master}, found again after a fail-over (Lettuce's own sentinel URL form)</td></tr>
 * </table>
 *
 * <p>Query parameters are Lettuce's ({@code timeout}, {@code verifyPeer}, …). Immutable.
 *
 * @param topology how Redis is deployed
 * @param nodes the URIs Lettuce connects with: one for a standalone server or a Sentinel set (its
 *     sentinels inside), the seeds of a cluster
 * @param text the URL as given, stripped
 */
public record RedisUrl(Topology topology, List<RedisURI> nodes, String text) {

    /** How Redis is deployed, which decides the client. */
    public enum Topology {
        /** One server: Lettuce's {@code RedisClient}. */
        STANDALONE,
        /** A Redis Cluster: Lettuce's {@code RedisClusterClient}, following the slot map. */
        CLUSTER,
        /** A primary found through Redis Sentinel: Lettuce's {@code RedisClient} with a sentinel URI. */
        SENTINEL
    }

    public RedisUrl {
        Objects.requireNonNull(topology, "topology");
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(text, "text");
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a Redis URL names at least one host");
        }
    }

    /**
     * Reads {@code url}.
     *
     * @throws IllegalArgumentException naming the problem (the password masked) when the URL has none of the
     *     forms above, names no host, a cluster URL names a database other than 0, or a sentinel URL names no
     *     master
     */
    public static RedisUrl parse(String url) {
        Objects.requireNonNull(url, "url");
        String s = url.strip();
        int colon = s.indexOf("://");
        String scheme = colon < 0 ? "" : s.substring(0, colon).toLowerCase(Locale.ROOT);
        try {
            return switch (scheme) {
                case "redis", "rediss" -> new RedisUrl(Topology.STANDALONE, List.of(RedisURI.create(s)), s);
                case "redis-sentinel", "rediss-sentinel" -> {
                    int hash = s.indexOf('#');
                    RedisURI uri = hash < 0 || s.substring(hash + 1).isBlank() ? null : RedisURI.create(s);
                    if (uri == null || uri.getSentinelMasterId() == null || uri.getSentinelMasterId().isBlank()) {
                        throw new IllegalArgumentException("a sentinel URL names its master after '#' ("
                                + scheme + "://host:26379#mymaster), was \"" + masked(s) + "\"");
                    }
                    yield new RedisUrl(Topology.SENTINEL, List.of(uri), s);
                }
                case "redis-cluster", "rediss-cluster" -> cluster(s, scheme);
                default -> throw new IllegalArgumentException("must be a redis://, rediss://, redis-cluster://, "
                        + "rediss-cluster://, redis-sentinel:// or rediss-sentinel:// URL, was \"" + masked(s) + "\"");
            };
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().contains(s) && !masked(s).equals(s)) {
                throw new IllegalArgumentException("not a usable Redis URL: \"" + masked(s) + "\"");
            }
            throw e;
        }
    }

    private static RedisUrl cluster(String s, String scheme) {
        String nodeScheme = scheme.startsWith("rediss") ? "rediss" : "redis";
        String rest = s.substring(scheme.length() + 3);
        int end = indexOfAny(rest, "/?#");
        String authority = end < 0 ? rest : rest.substring(0, end);
        String tail = end < 0 ? "" : rest.substring(end);
        int at = authority.lastIndexOf('@');
        String userInfo = at < 0 ? "" : authority.substring(0, at + 1);
        String hosts = authority.substring(at + 1);
        if (tail.startsWith("#")) {
            throw new IllegalArgumentException("a cluster URL has no '#' part, was \"" + masked(s) + "\"");
        }
        if (tail.startsWith("/")) {
            int q = tail.indexOf('?');
            String path = q < 0 ? tail : tail.substring(0, q);
            if (!path.equals("/") && !path.equals("/0")) {
                throw new IllegalArgumentException("a Redis Cluster has database 0 only, was \"" + path + "\" in \""
                        + masked(s) + "\"");
            }
            tail = q < 0 ? "" : tail.substring(q);
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String host : hosts.split(",", -1)) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("must name a host for each seed (" + scheme
                        + "://host:7000,host:7001), was \"" + masked(s) + "\"");
            }
            seeds.add(RedisURI.create(nodeScheme + "://" + userInfo + host.strip() + tail));
        }
        return new RedisUrl(Topology.CLUSTER, seeds, s);
    }

    private static int indexOfAny(String s, String chars) {
        for (int i = 0; i < s.length(); i++) {
            if (chars.indexOf(s.charAt(i)) >= 0) {
                return i;
            }
        }
        return -1;
    }

    /** The URL with any password replaced by {@code ***}: what logs and messages show. */
    public String masked() {
        return masked(text);
    }

    /** {@code url} with any password replaced by {@code ***}. */
    public static String masked(String url) {
        return url.replaceFirst("^([a-zA-Z-]+://)[^@/]*@", "$1***@");
    }

    /** The hosts as {@code host:port}, comma-separated: how log lines name this Redis. */
    public String hosts() {
        if (topology == Topology.SENTINEL) {
            StringBuilder sb = new StringBuilder();
            for (RedisURI sentinel : nodes.get(0).getSentinels()) {
                sb.append(sb.isEmpty() ? "" : ",").append(sentinel.getHost()).append(':').append(sentinel.getPort());
            }
            return "master " + nodes.get(0).getSentinelMasterId() + " of sentinel " + sb;
        }
        StringBuilder sb = new StringBuilder();
        for (RedisURI n : nodes) {
            sb.append(sb.isEmpty() ? "" : ",").append(n.getHost()).append(':').append(n.getPort());
        }
        return topology == Topology.CLUSTER ? "cluster " + sb : sb.toString();
    }

    /** The masked URL. */
    @Override
    public String toString() {
        return masked();
    }
}
