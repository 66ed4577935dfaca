package dev.sluice.redis;

/**
 * The Redis a URL leads to is deployed in a way the stores cannot use: a {@code redis://} URL that
 * reaches a Redis Cluster node (keys of other nodes would be answered {@code MOVED}), a
 * {@code redis-cluster://} URL that reaches a server with cluster support disabled, a Sentinel that
 * knows no master of the URL's name (or a server that is not a Sentinel), or a key prefix that would put
 * every key in one cluster slot. A configuration error: the message is one line naming the URL (password
 * masked), what was found and what to write instead; there is no cause and no stack trace to print.
 * The stores' {@code open} methods throw it at start; an endpoint that finds it later stays down
 * ({@link RedisEndpoint#topologyProblem()}).
 */
public final class RedisTopologyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** An exception with {@code message}, one line. */
    public RedisTopologyException(String message) {
        super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this; // a configuration error: the message says it all
    }
}
