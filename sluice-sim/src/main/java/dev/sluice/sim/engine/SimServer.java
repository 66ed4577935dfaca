package dev.sluice.sim.engine;

import dev.sluice.client.core.Answer;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.headers.Rejection;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.sim.scenario.ServerSettings;
import dev.sluice.time.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulated edge (SPEC §3): outage windows first, then the real limiter
 * ({@link InMemoryLimiterStore} on the simulation's clock; a denial is a 429 with Retry-After and
 * the RateLimit fields, nothing charged, SPEC §3.3), then the upstream's capacity (over it: 503
 * {@code overloaded}, the limiter charge refunded, SPEC §3.9), then service. Not thread-safe.
 */
final class SimServer {

    /** What the edge did with one request. */
    record Verdict(Answer.Response answer, boolean admitted, long serviceNanos) {
    }

    private final ServerSettings settings;
    private final ManualTimeSource time;
    private final SplittableRandom random;
    private final WireResponses wire;
    private final InMemoryLimiterStore store;
    private final Plan plan;
    private final String[] keys;
    private final Costs costs;
    private final long[] outageFrom;
    private final long[] outageTo;
    private final double capacityPerNano;
    private final double capacityBurst;
    private double capacityTokens;
    private long capacityLastNanos;
    private int inService;

    SimServer(ServerSettings settings, ManualTimeSource time, SplittableRandom random, int clients, int cost) {
        this.settings = settings;
        this.time = time;
        this.random = random;
        this.wire = new WireResponses();
        this.costs = Costs.requests(cost);
        if (settings.limit() != null) {
            List<Policy> policies = new ArrayList<>();
            for (ServerSettings.PolicySetting p : settings.limit().policies()) {
                policies.add(p.daily() ? QuotaPolicy.daily(p.name(), p.quota())
                        : BurstPolicy.of(p.name(), p.quota(), p.windowSeconds()));
            }
            this.plan = Plan.of("simulated", policies);
            this.store = new InMemoryLimiterStore(time);
            this.keys = new String[clients];
            for (int i = 0; i < clients; i++) {
                keys[i] = settings.limit().scope() == ServerSettings.Scope.GLOBAL ? "fleet" : "client-" + i;
            }
        } else {
            this.plan = null;
            this.store = null;
            this.keys = null;
        }
        int n = settings.outages().size();
        outageFrom = new long[n];
        outageTo = new long[n];
        for (int i = 0; i < n; i++) {
            outageFrom[i] = settings.outages().get(i).from().toNanos();
            outageTo[i] = settings.outages().get(i).to().toNanos();
        }
        ServerSettings.Capacity c = settings.capacity();
        capacityPerNano = c.rateBounded() ? c.ratePerSecond() / 1e9 : 0;
        capacityBurst = c.burst();
        capacityTokens = c.burst();
        capacityLastNanos = time.nanoTime();
    }

    /** Decides one request from client {@code client} arriving now. */
    Verdict handle(int client) {
        long now = time.nanoTime();
        for (int i = 0; i < outageFrom.length; i++) {
            if (now >= outageFrom[i] && now < outageTo[i]) {
                ServerSettings.Outage o = settings.outages().get(i);
                long ra = o.retryAfter() == null ? -1 : ceilSeconds(o.retryAfter().toNanos());
                return reject(o.status() == 429 ? Rejection.RATE_LIMITED : Rejection.OVERLOADED, ra, null, null, null);
            }
        }
        Allowed allowed = null;
        if (plan != null) {
            Decision d = store.decide(keys[client], plan, costs);
            switch (d) {
                case Denied denied -> {
                    return reject(Rejection.of(denied), denied.retryAfterSeconds(), plan, denied.states(),
                            denied.policy().name());
                }
                case CostExceedsBurst c -> {
                    return reject(Rejection.COST_EXCEEDS_BURST, -1, plan, store.usage(keys[client], plan),
                            c.policy().name());
                }
                case Unavailable u -> { // a shared store failing closed (SPEC §3.14); the in-memory one never does
                    return reject(Rejection.OVERLOADED, u.retryAfterSeconds(), plan, null, null);
                }
                case Allowed a -> allowed = a;
            }
        }
        ServerSettings.Capacity c = settings.capacity();
        boolean over = c.maxConcurrent() > 0 && inService >= c.maxConcurrent();
        if (!over && c.rateBounded()) {
            over = !takeCapacity(now);
        }
        if (over) {
            List<PolicyState> states = null;
            if (allowed != null) {
                store.refund(keys[client], allowed); // a shed request is never charged (SPEC §3.9)
                states = store.usage(keys[client], plan);
            }
            long ra = c.retryAfter() == null ? -1 : ceilSeconds(c.retryAfter().toNanos());
            return reject(Rejection.OVERLOADED, ra, plan, states, null);
        }
        inService++;
        Answer.Response ok = wire.answer(null, -1, plan, allowed == null ? null : allowed.states(), null, time.now());
        return new Verdict(ok, true, serviceNanos());
    }

    /** An admitted request finished its service. */
    void done() {
        inService--;
    }

    private Verdict reject(Rejection rejection, long retryAfterSeconds, Plan plan, List<PolicyState> states,
            String limit) {
        return new Verdict(wire.answer(rejection, retryAfterSeconds, plan, states, limit, time.now()), false, 0);
    }

    private boolean takeCapacity(long now) {
        if (capacityPerNano <= 0) {
            return false; // a capacity of 0 per second admits nothing
        }
        capacityTokens = Math.min(capacityBurst, capacityTokens + (now - capacityLastNanos) * capacityPerNano);
        capacityLastNanos = now;
        if (capacityTokens >= 1 - 1e-9) {
            capacityTokens -= 1;
            return true;
        }
        return false;
    }

    private long serviceNanos() {
        ServerSettings.ServiceTime s = settings.serviceTime();
        return switch (s.distribution()) {
            case CONSTANT -> s.mean().toNanos();
            case UNIFORM -> {
                long min = s.min().toNanos();
                long max = s.max().toNanos();
                yield max == min ? min : min + (long) (random.nextDouble() * (max - min));
            }
            case EXPONENTIAL -> (long) (-Math.log(1 - random.nextDouble()) * s.mean().toNanos());
        };
    }

    private static long ceilSeconds(long nanos) {
        return (nanos + 999_999_999L) / 1_000_000_000L;
    }
}
