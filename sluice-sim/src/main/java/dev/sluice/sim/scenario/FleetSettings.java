package dev.sluice.sim.scenario;

import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The simulated clients (SPEC §7.1): how many, how their calls arrive, what each call is, the SDK
 * settings of every client, and an optional application loop that retries around the SDK.
 *
 * @param clients SDK instances, each with its own state (one {@code ClientCore} per client)
 * @param arrivals when each client opens calls
 * @param call the shape of every call
 * @param sdk the SDK settings
 * @param appRetry the application's own retry loop around the SDK ("layers that retry")
 */
public record FleetSettings(int clients, Arrivals arrivals, CallShape call, SdkSettings sdk, AppRetry appRetry) {

    public FleetSettings {
        Objects.requireNonNull(arrivals, "arrivals");
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(sdk, "sdk");
        Objects.requireNonNull(appRetry, "appRetry");
    }

    public static FleetSettings defaults() {
        return new FleetSettings(1, Arrivals.defaults(), CallShape.defaults(), SdkSettings.defaults(),
                AppRetry.none());
    }

    /** The fleet's total demand in calls per second, where the arrival process has a rate; else 0. */
    public double callsPerSecond() {
        return switch (arrivals.process()) {
            case CONSTANT, POISSON -> arrivals.ratePerClient() * clients;
            case BURST -> arrivals.every() == null ? 0 : clients * arrivals.size() / seconds(arrivals.every());
        };
    }

    static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    /**
     * When one client opens calls.
     *
     * @param process constant (evenly spaced; clients evenly phased), poisson, or burst
     * @param ratePerClient calls per second per client (constant, poisson)
     * @param from first instant calls may arrive
     * @param to no call arrives at or after this instant ({@code null}: the end of the run)
     * @param size calls per burst (burst)
     * @param every time between bursts ({@code null}: one burst only)
     */
    public record Arrivals(Process process, double ratePerClient, Duration from, Duration to, int size,
            Duration every) {

        public enum Process { CONSTANT, POISSON, BURST }

        public Arrivals {
            Objects.requireNonNull(process, "process");
            Objects.requireNonNull(from, "from");
        }

        public static Arrivals defaults() {
            return new Arrivals(Process.CONSTANT, 1.0, Duration.ZERO, null, 1, null);
        }
    }

    /**
     * One call.
     *
     * @param method HTTP method (POST gets an Idempotency-Key minted by the SDK, SPEC §4.4)
     * @param deadline the call's total deadline, or {@code null}
     * @param priority admission priority (0 interactive, 1 background)
     * @param cost pacer tokens and limiter units per call
     */
    public record CallShape(String method, Duration deadline, int priority, int cost) {
        public static CallShape defaults() {
            return new CallShape("POST", null, 0, 1);
        }
    }

    /**
     * The SDK of every client. {@code enabled = false} makes each client a plain HTTP client: one
     * attempt, no pacer, no throttle, no budget, no queue bound (what an app loop of the seed wraps).
     *
     * @param enabled false for a plain HTTP client
     * @param maxAttempts attempts per call (SPEC §4.2: 3)
     * @param jitter whether waits after a Retry-After add {@code U(0, J)} (SPEC §4.3)
     * @param backoffBase full-jitter base without a hint (0.5 s)
     * @param backoffCap full-jitter cap (20 s)
     * @param maxWait longest hint the SDK waits for (60 s)
     * @param budgetEnabled whether the retry budget applies
     * @param budgetRatio retries per request over the window (0.1)
     * @param budgetWindow the budget window (1 min)
     * @param budgetMinRetries the floor per window (10)
     * @param throttleEnabled whether adaptive throttling applies (SPEC §4.5)
     * @param throttleK the K of the drop formula (2)
     * @param throttleWindow the throttle window (2 min)
     * @param throttleSafetyValves the SDK's safety valves (no drop below 1 request/s over the window,
     *     never above 80 %); off for the bare SPEC §4.5 formula and its table
     * @param pacerPerSecond the documented rate, 0 for unknown
     * @param pacerBurst the documented burst, 0 for unknown
     * @param paceFraction pace at this share of the documented rate (0.9)
     * @param followHeaders whether the pacer follows RateLimit headers
     * @param maxQueue admission queue bound (100, SPEC §5.1)
     * @param maxConcurrent calls in flight per client (64)
     * @param shared whether the fleet shares one pacer bucket and one retry budget (SPEC §4.8)
     */
    public record SdkSettings(
            boolean enabled,
            int maxAttempts,
            boolean jitter,
            Duration backoffBase,
            Duration backoffCap,
            Duration maxWait,
            boolean budgetEnabled,
            double budgetRatio,
            Duration budgetWindow,
            int budgetMinRetries,
            boolean throttleEnabled,
            double throttleK,
            Duration throttleWindow,
            boolean throttleSafetyValves,
            double pacerPerSecond,
            double pacerBurst,
            double paceFraction,
            boolean followHeaders,
            int maxQueue,
            int maxConcurrent,
            boolean shared) {

        /** The SDK's defaults (SPEC §4–§5). */
        public static SdkSettings defaults() {
            return new SdkSettings(true, 3, true, Duration.ofMillis(500), Duration.ofSeconds(20),
                    Duration.ofSeconds(60), true, 0.1, Duration.ofMinutes(1), 10, true, 2.0, Duration.ofMinutes(2),
                    true, 0, 0, 0.9, true, 100, 64, false);
        }
    }

    /**
     * The application's retry loop around the SDK (SPEC §4.7 says there should be none; the seed's
     * incident had one): after a failed call, sleep {@code base · factor^(n-1)} (times {@code U(0,1)}
     * when {@code jitter}) and call again, up to {@code attempts} calls in all.
     *
     * @param attempts calls per job, 1 for no loop
     * @param base the first sleep
     * @param factor growth per attempt
     * @param jitter full jitter on the sleep
     * @param on statuses that trigger a retry (0 stands for a call that never got an answer)
     * @param reuseIdempotencyKey whether a re-call carries the first call's Idempotency-Key, so the
     *     SDK's per-key attempt cap (SPEC §4.4) bounds both layers together
     */
    public record AppRetry(int attempts, Duration base, double factor, boolean jitter, Set<Integer> on,
            boolean reuseIdempotencyKey) {

        public AppRetry {
            on = Set.copyOf(on);
        }

        public static AppRetry none() {
            return new AppRetry(1, Duration.ofSeconds(1), 2.0, false, Set.of(429), true);
        }

        public boolean enabled() {
            return attempts > 1;
        }
    }
}
