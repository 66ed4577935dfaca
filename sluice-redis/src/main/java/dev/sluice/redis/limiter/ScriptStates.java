package dev.sluice.redis.limiter;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.gcra.Gcra;
import dev.sluice.limiter.gcra.GcraParams;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.limiter.quota.QuotaCounter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns the limiter script's per-policy values into {@code r}, {@code t}, waits and decisions, with
 * the limiter's own pure functions ({@link Gcra}, {@link QuotaCounter}, {@link CalendarWindow}), so
 * what the edge reports from Redis is computed by the very code the in-memory store uses. The script
 * only decides and charges; this class only reports.
 *
 * <p>Values are two {@code long}s per policy, in plan order, as the script returns them at a time
 * {@code nowMicros} (microseconds since 1970 on the store's clock):
 * <ul>
 *   <li>burst: the backlog in ticks ({@code max(0, TAT − now)}), then 0. {@link Gcra} is called with
 *       {@code TAT = backlog} and {@code now = 0}, which is the same arithmetic;</li>
 *   <li>quota: the effective window id and the units used in it ({@link QuotaCounter#effectiveWindow},
 *       {@link QuotaCounter#effectiveUsed});</li>
 *   <li>concurrency: the requests in flight (permits not expired), then 0.</li>
 * </ul>
 * Stateless and thread-safe.
 */
final class ScriptStates {

    private ScriptStates() {}

    static Instant instantOfMicros(long micros) {
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /** The decision the script's reply means: all charged ({@code admitted}) or none. */
    static Decision decision(Plan plan, Costs costs, boolean admitted, long nowMicros, long[] values, String permit) {
        Instant wall = instantOfMicros(nowMicros);
        if (admitted) {
            return new Allowed(plan, costs, states(plan, values, wall), permit);
        }
        Denied denied = deniedOrNull(plan, costs, values, wall);
        if (denied == null) {
            // the script said no but every policy admits by these values: a reply we cannot explain
            throw new IllegalStateException("limiter script denied a request every policy admits: plan "
                    + plan.name() + ", values " + java.util.Arrays.toString(values));
        }
        return denied;
    }

    /**
     * A {@link Denied} if some policy refuses {@code costs} in state {@code values} at {@code wall}
     * (mirrors the in-memory store's denial), {@code null} if every policy admits.
     */
    static Denied deniedOrNull(Plan plan, Costs costs, long[] values, Instant wall) {
        int n = plan.size();
        List<Policy> violated = new ArrayList<>(1);
        Policy longest = null;
        Duration longestWait = Duration.ZERO;
        for (int i = 0; i < n; i++) {
            Policy policy = plan.policy(i);
            Duration wait = waitFor(plan, i, values, costs.costFor(policy), wall);
            if (!wait.isZero()) {
                violated.add(policy);
                if (wait.compareTo(longestWait) > 0) {
                    longest = policy;
                    longestWait = wait;
                }
            }
        }
        return longest == null ? null : new Denied(plan, longest, longestWait, violated, states(plan, values, wall));
    }

    private static Duration waitFor(Plan plan, int i, long[] values, long cost, Instant wall) {
        if (plan.isConcurrency(i)) {
            // as the in-memory store: a slot frees when some request ends, which nobody can predict
            return values[2 * i] + cost > plan.policy(i).quota()
                    ? Duration.ofSeconds(ConcurrencyPolicy.RETRY_AFTER_SECONDS) : Duration.ZERO;
        }
        if (plan.isBurst(i)) {
            GcraParams p = plan.gcraParams(i);
            long ticks = Gcra.waitTicks(p, values[2 * i], 0, cost);
            return ticks == 0 ? Duration.ZERO : Duration.ofNanos(Gcra.ceilMicros(p, ticks) * 1000);
        }
        QuotaPolicy q = (QuotaPolicy) plan.policy(i);
        long current = q.window().windowIdAt(wall);
        long packed = QuotaCounter.pack(values[2 * i], values[2 * i + 1]);
        if (QuotaCounter.admit(packed, current, cost, q.quota()) != QuotaCounter.DENIED) {
            return Duration.ZERO;
        }
        long end = q.window().endEpochSecond(QuotaCounter.effectiveWindow(packed, current));
        Duration wait = Duration.between(wall, Instant.ofEpochSecond(end));
        return wait.isNegative() || wait.isZero() ? Duration.ofSeconds(1) : wait;
    }

    /** Each policy's {@code r}, {@code t}, used and reset_at in state {@code values} at {@code wall}. */
    static List<PolicyState> states(Plan plan, long[] values, Instant wall) {
        PolicyState[] out = new PolicyState[plan.size()];
        for (int i = 0; i < out.length; i++) {
            Policy policy = plan.policy(i);
            if (plan.isConcurrency(i)) {
                long inFlight = values[2 * i];
                out[i] = new PolicyState(policy, Math.max(0, policy.quota() - inFlight), 0, inFlight,
                        PolicyState.NO_RESET_AT);
            } else if (plan.isBurst(i)) {
                GcraParams p = plan.gcraParams(i);
                long backlog = values[2 * i];
                long remaining = Gcra.remaining(p, backlog, 0);
                out[i] = new PolicyState(policy, remaining, Gcra.resetSeconds(p, backlog, 0),
                        policy.quota() - remaining, PolicyState.NO_RESET_AT);
            } else {
                CalendarWindow window = ((QuotaPolicy) policy).window();
                long effective = values[2 * i];
                long used = values[2 * i + 1];
                long t = used == 0 ? 0 : window.secondsUntilEnd(effective, wall);
                out[i] = new PolicyState(policy, policy.quota() - used, t, used, window.endEpochSecond(effective));
            }
        }
        return List.of(out);
    }

    /**
     * {@code values} read at {@code fromMicros}, aged to {@code toMicros} assuming nobody charged in
     * between: bursts drain, quota windows roll over. Used by the deny cache, whose answer can only be
     * stricter than Redis's (other replicas only add to a backlog).
     */
    static long[] aged(Plan plan, long[] values, long fromMicros, long toMicros) {
        long elapsed = Math.max(0, toMicros - fromMicros);
        long[] out = values.clone();
        Instant wall = instantOfMicros(toMicros);
        for (int i = 0; i < plan.size(); i++) {
            if (plan.isConcurrency(i)) {
                continue; // in flight as read: releases cannot be foreseen (the cache asks Redis, see DenyCache)
            }
            if (plan.isBurst(i)) {
                GcraParams p = plan.gcraParams(i);
                long backlog = values[2 * i];
                // backlog < 2^51 and ticksPerMicro <= 2048: drained when elapsed >= ceil(backlog / k)
                long drainMicros = -Math.floorDiv(-backlog, p.ticksPerMicro());
                out[2 * i] = elapsed >= drainMicros ? 0 : backlog - elapsed * p.ticksPerMicro();
            } else {
                long current = ((QuotaPolicy) plan.policy(i)).window().windowIdAt(wall);
                long packed = QuotaCounter.pack(values[2 * i], values[2 * i + 1]);
                out[2 * i] = QuotaCounter.effectiveWindow(packed, current);
                out[2 * i + 1] = QuotaCounter.effectiveUsed(packed, current);
            }
        }
        return out;
    }
}
