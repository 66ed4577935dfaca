package dev.sluice.edge.config;

import dev.sluice.limiter.spi.FailureMode;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code store} section: where limiter state lives (DESIGN.md "Configuration", SPEC §3.14).
 *
 * <pre>{@code
 * store: memory                     # the default: this process's memory
 *
 * store: redis://10.0.0.5:6379      # one Redis shared by every replica, all other settings default
 *
 * store:
 *   url: redis://10.0.0.5:6379      # redis:// or rediss://, as Lettuce reads it (password, database);
 *                                   # redis-cluster://h1:7000,h2:7001 for a Redis Cluster;
 *                                   # redis-sentinel://h1:26379,h2:26379#mymaster through Sentinel
 *   replicas: 3                     # N: when Redis does not answer, each replica allows ceil(q/N)
 *   decision-timeout: 50ms          # longest wait for Redis per decision
 *   failure-mode: fail-open-degraded  # or fail-closed: 503 overloaded; a route may override it
 *   deny-cache: 1s                  # answer keys Redis just refused locally, at most this long; off
 *   lease: off                      # or { units: 10, ttl: 1s }: approximate, fewer round trips
 *   key-prefix: "sluice:lim:"
 *   unavailable-retry-after: 1s     # Retry-After of a fail-closed 503
 *   require-at-start: false         # true: do not start when Redis does not answer PING at start
 *   concurrency-lease: 5m           # longest a concurrent-requests slot is held without a release
 * }</pre>
 *
 * <p>The edge module does not build a Redis store itself (it does not depend on Redis): the
 * {@code sluice} command builds one from {@link Redis} and passes it with
 * {@code EdgeOptions.withStore(...)}. Immutable.
 */
public sealed interface StoreConfig permits StoreConfig.Memory, StoreConfig.Redis {

    /** The default: an in-memory store on the edge's clock. */
    StoreConfig MEMORY = new Memory();

    /** This process's memory ({@link dev.sluice.limiter.memory.InMemoryLimiterStore}). */
    record Memory() implements StoreConfig {
        @Override
        public String toString() {
            return "memory";
        }
    }

    /**
     * One Redis shared by every replica of the edge (SPEC §3.14; {@code RedisLimiterStore} in
     * {@code sluice-redis}): one server, a Redis Cluster, or a primary found through Sentinel.
     *
     * @param url {@code redis://[user:password@]host[:port][/database]} or {@code rediss://…}; a cluster's
     *     seeds {@code redis-cluster://host:port[,host:port…]}; Sentinels and the master's name
     *     {@code redis-sentinel://host:port[,host:port…]#master} (see {@link #urlProblem})
     * @param replicas {@code N}, the number of edge replicas sharing this Redis, 1..10,000: the local
     *     fallback allows {@code ceil(q/N)} per policy
     * @param decisionTimeout the longest wait for Redis per decision, &gt; 0
     * @param failureMode what routes without a {@code failure-mode} of their own answer when Redis does
     *     not
     * @param denyCacheMaxAge the longest a key Redis refused is answered locally; zero: no deny cache
     * @param lease lease mode, when on
     * @param keyPrefix the prefix of every Redis key the store writes
     * @param unavailableRetryAfter the {@code Retry-After} of a fail-closed 503, &gt; 0
     * @param requireAtStart whether {@code sluice edge} refuses to start when Redis does not answer a
     *     {@code PING} at start ({@code false}: it starts, deciding on the failure mode until Redis answers)
     * @param concurrencyLease the longest a {@code concurrent-requests} slot is held in Redis without a
     *     release (a crashed replica's slots come back after it), &gt; 0, at most 30 days
     */
    record Redis(String url, int replicas, Duration decisionTimeout, FailureMode failureMode,
            Duration denyCacheMaxAge, Optional<Lease> lease, String keyPrefix, Duration unavailableRetryAfter,
            boolean requireAtStart, Duration concurrencyLease)
            implements StoreConfig {

        /** The default {@code concurrency-lease}: 5 minutes. */
        public static final Duration DEFAULT_CONCURRENCY_LEASE = Duration.ofMinutes(5);

        /** Settings without {@code require-at-start} (false) and {@code concurrency-lease} (5 min). */
        public Redis(String url, int replicas, Duration decisionTimeout, FailureMode failureMode,
                Duration denyCacheMaxAge, Optional<Lease> lease, String keyPrefix, Duration unavailableRetryAfter) {
            this(url, replicas, decisionTimeout, failureMode, denyCacheMaxAge, lease, keyPrefix, unavailableRetryAfter,
                    false, DEFAULT_CONCURRENCY_LEASE);
        }

        /** The defaults of the table in the README: 1 replica, 50 ms, fail-open-degraded, 1 s, no lease. */
        public static Redis of(String url) {
            return new Redis(url, 1, Duration.ofMillis(50), FailureMode.FAIL_OPEN_DEGRADED, Duration.ofSeconds(1),
                    Optional.empty(), "sluice:lim:", Duration.ofSeconds(1));
        }

        /**
         * Checks the components.
         *
         * @throws IllegalArgumentException naming the field when a value is out of range
         */
        public Redis {
            Objects.requireNonNull(failureMode, "failureMode");
            Objects.requireNonNull(lease, "lease");
            Objects.requireNonNull(keyPrefix, "keyPrefix");
            String problem = urlProblem(url);
            if (problem != null) {
                throw new IllegalArgumentException("url: " + problem);
            }
            if (replicas < 1 || replicas > 10_000) {
                throw new IllegalArgumentException("replicas: must be in 1..10000, was " + replicas);
            }
            requirePositive("decision-timeout", decisionTimeout);
            if (denyCacheMaxAge == null || denyCacheMaxAge.isNegative()) {
                throw new IllegalArgumentException("deny-cache: must be >= 0, was " + denyCacheMaxAge);
            }
            requirePositive("unavailable-retry-after", unavailableRetryAfter);
            requirePositive("concurrency-lease", concurrencyLease);
            if (concurrencyLease.compareTo(Duration.ofDays(30)) > 0) {
                throw new IllegalArgumentException("concurrency-lease: must be at most 30 days, was "
                        + concurrencyLease);
            }
        }

        /**
         * Why {@code url} is not a usable Redis URL, or {@code null}. The forms: one server
         * {@code redis://[[user:]password@]host[:port][/database]} (or {@code rediss://}); a Redis Cluster
         * {@code redis-cluster://[[user:]password@]host[:port][,host[:port]…]} (or {@code rediss-cluster://};
         * the hosts are seeds, database 0 only); a primary found through Sentinel
         * {@code redis-sentinel://[[user:]password@]host[:port][,host[:port]…][/database]#master} (or
         * {@code rediss-sentinel://}).
         */
        public static String urlProblem(String url) {
            if (url == null || url.isBlank()) {
                return "must be a " + FORMS + " URL, was empty";
            }
            String s = url.strip();
            int sep = s.indexOf("://");
            String scheme = sep < 0 ? "" : s.substring(0, sep).toLowerCase(Locale.ROOT);
            return switch (scheme) {
                case "redis", "rediss" -> serverUrlProblem(s);
                case "redis-cluster", "rediss-cluster", "redis-sentinel", "rediss-sentinel" ->
                        multiHostUrlProblem(s, scheme);
                default -> "must be a " + FORMS + " URL, was \"" + masked(s) + "\"";
            };
        }

        /** The URL forms, as messages name them. */
        private static final String FORMS = "redis://, rediss://, redis-cluster:// or redis-sentinel://";

        private static String serverUrlProblem(String url) {
            try {
                URI u = new URI(url);
                if (u.getHost() == null || u.getHost().isEmpty()) {
                    return "must name a host (redis://host:6379), was \"" + masked(url) + "\"";
                }
                // what the Redis client (Lettuce) would refuse, or silently replace, when the store opens
                if (u.getPort() != -1 && (u.getPort() < 1 || u.getPort() > 65_535)) {
                    return "port: must be in 1..65535, was " + u.getPort();
                }
                String path = u.getRawPath() == null ? "" : u.getRawPath();
                if (!path.isEmpty() && !path.equals("/") && !path.matches("/[0-9]{1,9}")) {
                    return "the path is the database number (redis://host:6379/0), was \"" + path + "\"";
                }
                return queryProblem(u.getRawQuery());
            } catch (URISyntaxException e) {
                return "not a URL: " + masked(url);
            }
        }

        /** A cluster's seeds or a Sentinel set: {@code host[:port]} separated by commas. */
        private static String multiHostUrlProblem(String url, String scheme) {
            boolean sentinel = scheme.endsWith("sentinel");
            String rest = url.substring(scheme.length() + 3);
            int hash = rest.indexOf('#');
            String fragment = hash < 0 ? null : rest.substring(hash + 1);
            if (hash >= 0) {
                rest = rest.substring(0, hash);
            }
            int q = rest.indexOf('?');
            String query = q < 0 ? null : rest.substring(q + 1);
            if (q >= 0) {
                rest = rest.substring(0, q);
            }
            int slash = rest.indexOf('/');
            String path = slash < 0 ? "" : rest.substring(slash);
            String authority = slash < 0 ? rest : rest.substring(0, slash);
            String hosts = authority.substring(authority.lastIndexOf('@') + 1);
            String example = sentinel ? scheme + "://host:26379#mymaster" : scheme + "://host:7000,host:7001";
            for (String hostPort : hosts.split(",", -1)) {
                String problem = hostPortProblem(hostPort.strip());
                if (problem != null) {
                    return problem + " (" + example + "), was \"" + masked(url) + "\"";
                }
            }
            if (sentinel) {
                if (!path.isEmpty() && !path.equals("/") && !path.matches("/[0-9]{1,9}")) {
                    return "the path is the database number (" + scheme + "://host:26379/0#mymaster), was \"" + path
                            + "\"";
                }
                if (fragment == null || fragment.isBlank()) {
                    return "a sentinel URL names its master after '#' (" + example + "), was \"" + masked(url) + "\"";
                }
            } else {
                if (!path.isEmpty() && !path.equals("/") && !path.equals("/0")) {
                    return "a Redis Cluster has database 0 only, was \"" + path + "\"";
                }
                if (fragment != null) {
                    return "a cluster URL has no '#' part, was \"" + masked(url) + "\"";
                }
            }
            return queryProblem(query);
        }

        private static String hostPortProblem(String hostPort) {
            if (hostPort.isEmpty()) {
                return "must name a host for each node";
            }
            String host = hostPort;
            String port = null;
            if (hostPort.startsWith("[")) { // [::1]:7000
                int close = hostPort.indexOf(']');
                if (close < 0) {
                    return "an IPv6 host is written in brackets";
                }
                host = hostPort.substring(1, close);
                String after = hostPort.substring(close + 1);
                port = after.startsWith(":") ? after.substring(1) : after.isEmpty() ? null : after;
            } else if (hostPort.lastIndexOf(':') >= 0) {
                host = hostPort.substring(0, hostPort.lastIndexOf(':'));
                port = hostPort.substring(hostPort.lastIndexOf(':') + 1);
            }
            if (host.isEmpty() || !host.matches("[A-Za-z0-9._:%-]+")) {
                return "must name a host for each node";
            }
            if (port != null && (!port.matches("[0-9]{1,5}") || Integer.parseInt(port) < 1
                    || Integer.parseInt(port) > 65_535)) {
                return "port: must be in 1..65535, was \"" + port + "\"";
            }
            return null;
        }

        private static String queryProblem(String query) {
            for (String param : (query == null ? "" : query).split("&")) {
                if (param.startsWith("verifyPeer=")) {
                    String mode = param.substring("verifyPeer=".length());
                    if (!mode.matches("(?i)full|ca|none")) {
                        return "verifyPeer: must be full, ca or none, was \"" + mode + "\"";
                    }
                }
            }
            return null;
        }

        /** {@code url} with any password replaced by {@code ***}: what logs and messages show. */
        public String maskedUrl() {
            return masked(url);
        }

        private static String masked(String url) {
            return url.replaceFirst("^([a-zA-Z-]+://)[^@/]*@", "$1***@");
        }

        private static void requirePositive(String field, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(field + ": must be > 0, was " + d);
            }
        }

        /** The settings as YAML would write them, the password masked. */
        @Override
        public String toString() {
            return "redis " + maskedUrl() + " (replicas " + replicas + ", decision-timeout "
                    + decisionTimeout.toMillis() + "ms, "
                    + failureMode.name().toLowerCase(Locale.ROOT).replace('_', '-')
                    + ", deny-cache " + (denyCacheMaxAge.isZero() ? "off" : denyCacheMaxAge.toMillis() + "ms")
                    + ", lease " + lease.map(l -> l.units() + " units / " + l.ttl().toMillis() + "ms").orElse("off")
                    + (requireAtStart ? ", required at start" : "")
                    + ")";
        }
    }

    /**
     * Lease mode (approximate; see {@code LeasingLimiterStore}): a replica charges {@code units} of a
     * key at once and spends them locally for at most {@code ttl}.
     *
     * @param units units per lease, 2..1,000,000
     * @param ttl how long a lease may be spent before its rest goes back, &gt; 0
     */
    record Lease(long units, Duration ttl) {
        /**
         * Checks the components.
         *
         * @throws IllegalArgumentException naming the field when a value is out of range
         */
        public Lease {
            if (units < 2 || units > 1_000_000) {
                throw new IllegalArgumentException("units: must be in 2..1000000, was " + units);
            }
            if (ttl == null || ttl.isNegative() || ttl.isZero()) {
                throw new IllegalArgumentException("ttl: must be > 0, was " + ttl);
            }
        }
    }
}
