package dev.sluice.sim.scenario;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.Priority;
import dev.sluice.client.RetryBudgetConfig;
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
     * @param priority admission priority (SPEC §5.2)
     * @param cost pacer tokens and limiter units per call
     */
    public record CallShape(String method, Duration deadline, Priority priority, int cost) {
        public static CallShape defaults() {
            return new CallShape("POST", null, Priority.INTERACTIVE, 1);
        }
    }

    /**
     * The SDK of every client: a {@link ClientConfig} (its defaults are the SDK's own,
     * {@link ClientConfig#defaults()}) and the switches a scenario turns that the SDK has no single
     * setting for. {@code enabled = false} makes each client a plain HTTP client: one attempt, no pacer,
     * no throttle, no budget, no queue bound (what an application loop of the incident wraps).
     *
     * @param enabled false for a plain HTTP client
     * @param client the SDK configuration of every client (retry, budget, throttle, pacer, admission)
     * @param jitter whether waits after a Retry-After add {@code U(0, J)} (SPEC §4.3); off: the wait is
     *     exactly the hint
     * @param budgetEnabled whether the retry budget applies (off: every retry is granted)
     * @param shared whether the fleet shares one pacer bucket and one retry budget (SPEC §4.8)
     */
    public record SdkSettings(boolean enabled, ClientConfig client, boolean jitter, boolean budgetEnabled,
            boolean shared) {

        public SdkSettings {
            Objects.requireNonNull(client, "client");
        }

        /** The SDK's defaults (SPEC §4–§5), as {@link ClientConfig#defaults()} has them. */
        public static SdkSettings defaults() {
            return new SdkSettings(true, ClientConfig.defaults(), true, true, false);
        }

        /** The configuration each simulated client's core runs with: {@link #client()} with the switches applied. */
        public ClientConfig effective() {
            ClientConfig c = client;
            if (!jitter) {
                // J = min(ceiling, max(floor, ra)) = 0: the wait is exactly the server's Retry-After (SPEC §4.3)
                c = c.withRetry(c.retry().toBuilder().jitterFloor(Duration.ZERO).jitterCeiling(Duration.ZERO).build());
            }
            if (!budgetEnabled) {
                // the floor grants every retry
                c = c.withBudget(new RetryBudgetConfig(0, c.budget().window(), Integer.MAX_VALUE));
            }
            return c;
        }

        public int maxAttempts() {
            return client.retry().maxAttempts();
        }

        public Duration maxWait() {
            return client.retry().maxWait();
        }

        public double budgetRatio() {
            return client.budget().ratio();
        }

        public Duration budgetWindow() {
            return client.budget().window();
        }

        public int budgetMinRetries() {
            return client.budget().minRetries();
        }

        public boolean throttleEnabled() {
            return client.throttle().enabled();
        }

        public double throttleK() {
            return client.throttle().k();
        }

        public Duration throttleWindow() {
            return client.throttle().window();
        }

        public double pacerPerSecond() {
            return client.pacer().documentedPerSecond();
        }

        public double pacerBurst() {
            return client.pacer().documentedBurst();
        }

        public double paceFraction() {
            return client.pacer().paceFraction();
        }

        public boolean followHeaders() {
            return client.pacer().followHeaders();
        }

        public int maxQueue() {
            return client.admission().maxQueue();
        }

        public int maxConcurrent() {
            return client.admission().maxConcurrent();
        }
    }

    /**
     * The application's retry loop around the SDK (SPEC §4.7 says there should be none; the
     * incident of §7.2 had one): after a failed call, sleep {@code base · factor^(n-1)} (times {@code U(0,1)}
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
