package dev.sluice.sim.scenario;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The simulated edge and the upstream behind it (SPEC §3, §7.1).
 *
 * @param rtt network round trip between a client and the edge; half of it each way. Zero puts the
 *     request at the server the instant it is sent
 * @param serviceTime how long an admitted request occupies the upstream before its 200 answer
 * @param limit the limiter policies the edge enforces, or {@code null} for none (everything passes)
 * @param capacity the upstream's capacity; over it the edge sheds with 503 (SPEC §3.9)
 * @param outages windows in which the edge answers every request with a fixed status (a blip)
 */
public record ServerSettings(
        Duration rtt, ServiceTime serviceTime, LimitSettings limit, Capacity capacity, List<Outage> outages) {

    public ServerSettings {
        Objects.requireNonNull(rtt, "rtt");
        Objects.requireNonNull(serviceTime, "serviceTime");
        Objects.requireNonNull(capacity, "capacity");
        outages = List.copyOf(outages);
    }

    /** No network delay, instant service, no limit, unbounded capacity, no outage. */
    public static ServerSettings defaults() {
        return new ServerSettings(Duration.ZERO, ServiceTime.constant(Duration.ZERO), null, Capacity.unbounded(),
                List.of());
    }

    /** The end of the last outage, or {@code null} when there is none. */
    public Duration lastOutageEnd() {
        Duration end = null;
        for (Outage o : outages) {
            if (end == null || o.to().compareTo(end) > 0) {
                end = o.to();
            }
        }
        return end;
    }

    /** How long an admitted request is served: {@code constant}, {@code uniform} or {@code exponential}. */
    public record ServiceTime(Distribution distribution, Duration mean, Duration min, Duration max) {

        public enum Distribution { CONSTANT, UNIFORM, EXPONENTIAL }

        public ServiceTime {
            Objects.requireNonNull(distribution, "distribution");
            Objects.requireNonNull(mean, "mean");
            Objects.requireNonNull(min, "min");
            Objects.requireNonNull(max, "max");
        }

        public static ServiceTime constant(Duration d) {
            return new ServiceTime(Distribution.CONSTANT, d, d, d);
        }
    }

    /** Which key a limit counts against. */
    public enum Scope {
        /** Every client is its own API key. */
        PER_CLIENT,
        /** The whole fleet shares one key (one account's limit, SPEC §4.8). */
        GLOBAL
    }

    /**
     * The limiter's plan and its scope.
     *
     * @param scope per client or global
     * @param policies the plan's policies, in wire order
     */
    public record LimitSettings(Scope scope, List<PolicySetting> policies) {
        public LimitSettings {
            Objects.requireNonNull(scope, "scope");
            policies = List.copyOf(policies);
        }
    }

    /**
     * One limiter policy.
     *
     * @param name the policy name on the wire
     * @param quota {@code q}
     * @param windowSeconds {@code w} for a burst policy; ignored for a daily quota
     * @param daily true for a calendar daily quota (00:00 UTC), false for a burst policy (GCRA)
     */
    public record PolicySetting(String name, long quota, long windowSeconds, boolean daily) {
    }

    /**
     * The upstream's capacity. Over it, the edge sheds with {@code status} (503 overloaded), not
     * charged to any policy (SPEC §3.9).
     *
     * @param maxConcurrent requests in service at once; 0 for no bound
     * @param ratePerSecond requests admitted per second (a token bucket of {@code burst}); negative
     *     for no bound, 0 to admit nothing
     * @param burst the bucket size of {@code ratePerSecond}
     * @param retryAfter the Retry-After of a shed answer, or {@code null} for none
     */
    public record Capacity(int maxConcurrent, double ratePerSecond, double burst, Duration retryAfter) {

        public static Capacity unbounded() {
            return new Capacity(0, -1, 1, null);
        }

        public boolean rateBounded() {
            return ratePerSecond >= 0;
        }
    }

    /**
     * A window {@code [from, to)} in which every request is answered {@code status} (429 or 503)
     * with the given Retry-After (none when {@code null}).
     */
    public record Outage(Duration from, Duration to, int status, Duration retryAfter) {
        public Outage {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
        }
    }
}
