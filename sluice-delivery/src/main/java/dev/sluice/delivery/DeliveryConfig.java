package dev.sluice.delivery;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The worker's settings. Immutable; build with {@link #builder()}. Every default is listed here.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>requestTimeout</td><td>3 s (SPEC §6.2)</td><td>connect + answer deadline of one attempt</td></tr>
 *   <tr><td>lease</td><td>30 s</td><td>how long a claim holds a row without a heartbeat; renewed
 *       every lease/3, so only a dead or stalled worker loses one</td></tr>
 *   <tr><td>concurrency</td><td>8</td><td>attempts in flight at once per worker</td></tr>
 *   <tr><td>pollInterval</td><td>1 s</td><td>longest idle wait before looking for due work
 *       again (an in-process enqueue wakes the worker at once)</td></tr>
 *   <tr><td>defaultMaxAge</td><td>72 h</td><td>maximum age of an event type without its own
 *       entry (SPEC §6.5)</td></tr>
 *   <tr><td>maxRetryAfter</td><td>24 h</td><td>the longest {@code Retry-After} honoured; a longer
 *       one is treated as invalid and the backoff applies (SPEC §6.3; see {@code RetryRules})</td></tr>
 *   <tr><td>maxAgeByType</td><td>none</td><td>per event type, e.g. presence 5 min, purchase 3 days</td></tr>
 *   <tr><td>redactPaths</td><td>none</td><td>JSON paths ({@code $.player.email},
 *       {@code $.items[*].card}) blanked in dead-letter copies (SPEC §6.6)</td></tr>
 *   <tr><td>alignClockWithStore</td><td>true</td><td>measure the offset between this worker's
 *       clock and the store's (PostgreSQL) and use store time for eligibility and leases, so
 *       replicas with skewed clocks neither undercut a Retry-After nor steal live leases
 *       (SPEC §6.4)</td></tr>
 *   <tr><td>queueDepthInterval</td><td>5 s</td><td>how often the worker reports queue depth</td></tr>
 * </table>
 */
public record DeliveryConfig(
        Duration requestTimeout,
        Duration lease,
        int concurrency,
        Duration pollInterval,
        Duration defaultMaxAge,
        Map<String, Duration> maxAgeByType,
        List<String> redactPaths,
        boolean alignClockWithStore,
        Duration queueDepthInterval,
        Duration maxRetryAfter) {

    /**
     * @throws IllegalArgumentException if a duration is not positive or concurrency &lt; 1
     */
    public DeliveryConfig {
        positive(requestTimeout, "requestTimeout");
        positive(lease, "lease");
        positive(pollInterval, "pollInterval");
        positive(defaultMaxAge, "defaultMaxAge");
        positive(queueDepthInterval, "queueDepthInterval");
        positive(maxRetryAfter, "maxRetryAfter");
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be >= 1: " + concurrency);
        }
        if (lease.compareTo(requestTimeout) <= 0) {
            throw new IllegalArgumentException("lease (" + lease + ") must be longer than requestTimeout ("
                    + requestTimeout + "): a lease must outlive the attempt it covers");
        }
        maxAgeByType.forEach((type, age) -> positive(age, "maxAgeByType." + type));
        maxAgeByType = Map.copyOf(maxAgeByType);
        redactPaths = List.copyOf(redactPaths);
    }

    private static void positive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0: " + d);
        }
    }

    /** Every default (see the class table). */
    public static DeliveryConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The maximum age of events of {@code type} (SPEC §6.5). */
    public Duration maxAge(String type) {
        return maxAgeByType.getOrDefault(type, defaultMaxAge);
    }

    /** How often a worker renews its leases: a third of the lease, so two missed beats still hold. */
    public Duration heartbeatInterval() {
        return lease.dividedBy(3);
    }

    /** A builder initialised from this config. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.requestTimeout = requestTimeout;
        b.lease = lease;
        b.concurrency = concurrency;
        b.pollInterval = pollInterval;
        b.defaultMaxAge = defaultMaxAge;
        b.maxAgeByType.putAll(maxAgeByType);
        b.redactPaths = redactPaths;
        b.alignClockWithStore = alignClockWithStore;
        b.queueDepthInterval = queueDepthInterval;
        b.maxRetryAfter = maxRetryAfter;
        return b;
    }

    /** Not thread-safe. */
    public static final class Builder {
        private Duration requestTimeout = Duration.ofSeconds(3); // SPEC §6.2 default
        private Duration lease = Duration.ofSeconds(30);
        private int concurrency = 8;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration defaultMaxAge = Duration.ofHours(72);
        private final Map<String, Duration> maxAgeByType = new LinkedHashMap<>();
        private List<String> redactPaths = List.of();
        private boolean alignClockWithStore = true;
        private Duration queueDepthInterval = Duration.ofSeconds(5);
        private Duration maxRetryAfter = Duration.ofHours(24);

        private Builder() {
        }

        public Builder requestTimeout(Duration v) {
            requestTimeout = v;
            return this;
        }

        public Builder lease(Duration v) {
            lease = v;
            return this;
        }

        public Builder concurrency(int v) {
            concurrency = v;
            return this;
        }

        public Builder pollInterval(Duration v) {
            pollInterval = v;
            return this;
        }

        public Builder defaultMaxAge(Duration v) {
            defaultMaxAge = v;
            return this;
        }

        public Builder maxAge(String type, Duration v) {
            maxAgeByType.put(Objects.requireNonNull(type, "type"), v);
            return this;
        }

        public Builder redactPaths(List<String> v) {
            redactPaths = List.copyOf(v);
            return this;
        }

        public Builder alignClockWithStore(boolean v) {
            alignClockWithStore = v;
            return this;
        }

        public Builder queueDepthInterval(Duration v) {
            queueDepthInterval = v;
            return this;
        }

        /** The longest Retry-After honoured (default 24 h); a longer one is ignored and the backoff applies. */
        public Builder maxRetryAfter(Duration v) {
            maxRetryAfter = v;
            return this;
        }

        /**
         * @throws IllegalArgumentException if a setting is out of range
         */
        public DeliveryConfig build() {
            return new DeliveryConfig(requestTimeout, lease, concurrency, pollInterval, defaultMaxAge,
                    maxAgeByType, redactPaths, alignClockWithStore, queueDepthInterval, maxRetryAfter);
        }
    }
}
