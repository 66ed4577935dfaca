package dev.sluice.redis.client;

import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisEndpointConfig;
import java.util.Objects;

/**
 * One provider limit shared through Redis by every process of an SDK user (SPEC §4.8): the pacer's
 * bucket and the retry budget, over one {@link RedisEndpoint}. Two lines switch a client to it:
 *
 * <pre>{@code
 * RedisClientLimits shared = RedisClientLimits.open("redis://127.0.0.1:6379", "api.example.com",
 *         SharedLimitsConfig.builder().processCount(3).build());
 * SluiceHttpClient client = SluiceHttpClient.builder().pacer(PacerConfig.documented(50, 50))
 *         .tokenBucketStore(shared.tokenBucket()).retryBudgetStore(shared.retryBudget()).build();
 * }</pre>
 *
 * <p>Thread-safe. Closing it closes the endpoint if it opened it; close the client first.
 */
public final class RedisClientLimits implements AutoCloseable {

    private final RedisEndpoint endpoint;
    private final boolean ownsEndpoint;
    private final RedisTokenBucketStore bucket;
    private final RedisRetryBudgetStore budget;

    private RedisClientLimits(RedisEndpoint endpoint, boolean ownsEndpoint, String limitName, SharedLimitsConfig config) {
        this.endpoint = endpoint;
        this.ownsEndpoint = ownsEndpoint;
        this.bucket = new RedisTokenBucketStore(endpoint, limitName, config);
        this.budget = new RedisRetryBudgetStore(endpoint, limitName, config);
    }

    /**
     * Connects to {@code uri} (its own endpoint, closed with this object) and waits for the first
     * connection at most the endpoint's connect timeout (1 s); a Redis that is down at start is answered
     * for by the local fallback until the probe connects.
     *
     * @param limitName the name every process sharing the provider's limit uses, e.g. its host and the
     *     API key's id
     * @param uri {@link dev.sluice.redis.RedisUrl}: one server, a {@code redis-cluster://} or a
     *     {@code redis-sentinel://} URL
     * @throws IllegalArgumentException if the URI cannot be parsed or the name is empty
     * @throws dev.sluice.redis.RedisTopologyException if Redis answered and is deployed otherwise than the
     *     URL says, or the key prefix has a brace on a cluster
     */
    public static RedisClientLimits open(String uri, String limitName, SharedLimitsConfig config) {
        return open(RedisEndpointConfig.of(uri), limitName, config);
    }

    /** {@link #open(String, String, SharedLimitsConfig)} with endpoint settings of its own. */
    public static RedisClientLimits open(RedisEndpointConfig endpointConfig, String limitName,
            SharedLimitsConfig config) {
        Objects.requireNonNull(limitName, "limitName");
        Objects.requireNonNull(config, "config");
        SharedKeys.of(config.keyPrefix(), limitName); // fail on a bad name before connecting
        RedisEndpoint endpoint = RedisEndpoint.connect(endpointConfig);
        try {
            // the first attempt's end (a cold JVM loads the client first: at most 10 connect timeouts); not up
            // yet: the local fallback answers until the probe connects
            endpoint.awaitFirstAttempt(endpointConfig.connectTimeout().multipliedBy(10));
            return new RedisClientLimits(endpoint, true, limitName, config);
        } catch (RuntimeException e) {
            endpoint.close();
            throw e;
        }
    }

    /** The stores of {@code limitName} over an endpoint the caller owns (e.g. shared with the edge's stores). */
    public static RedisClientLimits over(RedisEndpoint endpoint, String limitName, SharedLimitsConfig config) {
        return new RedisClientLimits(Objects.requireNonNull(endpoint, "endpoint"), false, limitName, config);
    }

    /** The shared pacer bucket, for {@code SluiceHttpClient.Builder.tokenBucketStore}. */
    public RedisTokenBucketStore tokenBucket() {
        return bucket;
    }

    /** The shared retry budget, for {@code SluiceHttpClient.Builder.retryBudgetStore}. */
    public RedisRetryBudgetStore retryBudget() {
        return budget;
    }

    /** The endpoint (its health and counters). */
    public RedisEndpoint endpoint() {
        return endpoint;
    }

    /** Closes the endpoint if {@link #open} made it. */
    @Override
    public void close() {
        if (ownsEndpoint) {
            endpoint.close();
        }
    }
}
