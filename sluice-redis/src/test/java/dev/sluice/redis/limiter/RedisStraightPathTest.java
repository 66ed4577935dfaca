package dev.sluice.redis.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code limiter.lua} decides plans of burst and daily-quota policies on a straight path of its own
 * (fewer Redis calls, closures and tables per decision); every other plan and op takes the general
 * part. The same random traces run against the script as shipped and against the same script with the
 * straight path switched off must leave Redis in the same state: same decisions, same usage reads, same
 * stored value in every key and the same expiry (to within the real time between the two writes), so
 * both halves, and an old and a new script sharing one Redis, read and write one format.
 */
@ExtendWith(RedisTestSupport.class)
class RedisStraightPathTest {

    private static final String SWITCH = "local straight = op == 'D'";

    // windows of minutes to hours: no key expires in real time while the trace runs, so the two stores
    // never see a key that has expired for one and not yet for the other
    private static final List<Plan> PLANS = List.of(
            Plan.of("burst-only", BurstPolicy.of("burst", 5, 600)),
            // 7 per hour: 7 ticks per microsecond, an emission interval of no whole microsecond
            Plan.of("odd", BurstPolicy.of("burst", 7, 3_600)),
            Plan.of("free", BurstPolicy.of("burst", 20, 1_200), QuotaPolicy.daily("daily", 60)),
            Plan.of("tight", BurstPolicy.of("burst", 9, 900), QuotaPolicy.daily("daily", 12)),
            Plan.of("two-bursts", BurstPolicy.of("minute", 4, 240), BurstPolicy.of("hour", 6, 3_600),
                    QuotaPolicy.daily("daily", 100)),
            // the general part on both sides: a monthly quota and a concurrency policy
            Plan.of("monthly", BurstPolicy.of("burst", 6, 600), QuotaPolicy.monthly("monthly", 40, 1)),
            Plan.of("conc", BurstPolicy.of("burst", 8, 600), ConcurrencyPolicy.of("inflight", 2)));

    private static RedisLimiterStore store(ManualTimeSource time, String prefix, boolean straightPath) {
        var script = RedisLimiterStore.limiterScript();
        if (!straightPath) {
            script = script.replacing(SWITCH, "local straight = false");
        }
        return new RedisLimiterStore(RedisTestSupport.endpoint(), false, RedisLimiterConfig.builder()
                .keyPrefix(prefix)
                .scriptTime(time)
                .localTime(time)
                .minKeyTtl(Duration.ofMillis(1))
                .decisionTimeout(Duration.ofSeconds(5))
                .denyCacheMaxAge(Duration.ZERO) // every decision reaches the script
                .build(), script, true);
    }

    @Test
    void theShippedScriptHasTheSwitchTheTraceTurnsOff() {
        // replacing() refuses a target that is missing, so a renamed switch fails here, not silently
        RedisLimiterStore.limiterScript().replacing(SWITCH, "local straight = false");
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13})
    void theStraightPathDecidesAndStoresExactlyAsTheGeneralPart(long seed) {
        // 09:00 UTC; jumps of 6 h cross midnight without landing near it (a key written just before
        // midnight would live milliseconds of real time)
        ManualTimeSource time = ManualTimeSource.at("2026-12-01T09:00:00Z");
        String fastPrefix = RedisTestSupport.newPrefix("straight");
        String generalPrefix = RedisTestSupport.newPrefix("general");
        RedisLimiterStore fast = store(time, fastPrefix, true);
        RedisLimiterStore general = store(time, generalPrefix, false);
        try {
            SplittableRandom random = new SplittableRandom(seed);
            Map<String, List<Allowed[]>> charges = new HashMap<>();
            Map<String, Integer> outcomes = new HashMap<>();
            for (int step = 0; step < 1_500; step++) {
                time.advance(random.nextInt(100) == 0 ? Duration.ofHours(6) : Duration.ofMillis(random.nextInt(0, 400)));
                int k = random.nextInt(10);
                String key = "key-" + k;
                Plan plan = PLANS.get(k % PLANS.size());
                String where = "seed " + seed + " step " + step + " at " + time.now() + " " + key + " (" + plan.name() + ")";
                int op = random.nextInt(100);
                if (op < 80) {
                    Costs costs = Costs.requests(random.nextInt(1, 4));
                    Decision a = fast.decide(key, plan, costs);
                    Decision b = general.decide(key, plan, costs);
                    assertThat(withoutLease(a)).as(where).isEqualTo(withoutLease(b));
                    outcomes.merge(plan.name() + (a instanceof Denied d ? "/denied by " + d.policy().name() : "/allowed"),
                            1, Integer::sum);
                    if (a instanceof Allowed x && b instanceof Allowed y) {
                        charges.computeIfAbsent(key, z -> new ArrayList<>()).add(new Allowed[] {x, y});
                        if (plan.hasConcurrencyPolicy() && random.nextBoolean()) {
                            fast.release(key, x);
                            general.release(key, y);
                        }
                    }
                } else if (op < 90) {
                    assertThat(fast.usage(key, plan)).as(where + " usage").isEqualTo(general.usage(key, plan));
                } else {
                    List<Allowed[]> mine = charges.getOrDefault(key, List.of());
                    if (!mine.isEmpty()) {
                        Allowed[] pair = mine.remove(random.nextInt(mine.size()));
                        fast.refund(key, pair[0]);
                        general.refund(key, pair[1]);
                    }
                }
                assertSameState(where, fastPrefix, generalPrefix);
            }
            // the trace took both paths through every outcome the straight path has
            assertThat(outcomes).containsKeys("burst-only/allowed", "burst-only/denied by burst", "odd/denied by burst",
                    "free/allowed", "tight/denied by burst", "tight/denied by daily", "two-bursts/denied by minute",
                    "two-bursts/denied by hour", "monthly/allowed", "conc/allowed");
        } finally {
            fast.close();
            general.close();
            RedisTestSupport.deletePrefix(fastPrefix);
            RedisTestSupport.deletePrefix(generalPrefix);
        }
    }

    @Test
    void aDenialOnTheStraightPathGivesAKeyWithoutExpiryTheGeneralPartsExpiry() {
        ManualTimeSource time = ManualTimeSource.at("2026-12-01T18:00:00Z");
        String fastPrefix = RedisTestSupport.newPrefix("straight-r16");
        String generalPrefix = RedisTestSupport.newPrefix("general-r16");
        RedisLimiterStore fast = store(time, fastPrefix, true);
        RedisLimiterStore general = store(time, generalPrefix, false);
        Plan plan = Plan.of("p", BurstPolicy.of("burst", 60, 60), QuotaPolicy.daily("daily", 10_000));
        try {
            for (RedisLimiterStore s : List.of(fast, general)) {
                assertThat(s.decide("sk_1", plan, Costs.requests(60))).isInstanceOf(Allowed.class);
            }
            for (String prefix : List.of(fastPrefix, generalPrefix)) {
                RedisTestSupport.keys(prefix).forEach(k -> RedisTestSupport.admin().persist(k)); // as an older writer left it
            }
            time.advance(Duration.ofSeconds(30)); // half the bucket back: 30 s of backlog left

            assertThat(fast.decide("sk_1", plan, Costs.requests(31))).isInstanceOf(Denied.class)
                    .isEqualTo(general.decide("sk_1", plan, Costs.requests(31)));

            assertSameState("after the denials", fastPrefix, generalPrefix);
            // 30,001 ms for the burst (its backlog); the daily window ends at midnight, 6 h - 30 s away
            assertThat(RedisTestSupport.admin().pttl(keyEndingWith(fastPrefix, ":burst"))).isBetween(29_000L, 30_001L);
            assertThat(RedisTestSupport.admin().pttl(keyEndingWith(fastPrefix, ":daily")))
                    .isBetween(21_569_000L, 21_570_001L);
        } finally {
            fast.close();
            general.close();
            RedisTestSupport.deletePrefix(fastPrefix);
            RedisTestSupport.deletePrefix(generalPrefix);
        }
    }

    /** Same keys (after the prefix), same values, same expiry to within the real time between the writes. */
    private static void assertSameState(String where, String fastPrefix, String generalPrefix) {
        Map<String, String[]> a = state(fastPrefix);
        Map<String, String[]> b = state(generalPrefix);
        assertThat(a.keySet()).as(where + " keys").isEqualTo(b.keySet());
        for (String k : a.keySet()) {
            String[] x = a.get(k);
            String[] y = b.get(k);
            assertThat(x[0]).as(where + " value of " + k).isEqualTo(y[0]);
            long ttlA = Long.parseLong(x[1]);
            long ttlB = Long.parseLong(y[1]);
            assertThat(ttlA).as(where + " expiry of " + k).isPositive();
            assertThat(Math.abs(ttlA - ttlB)).as(where + " expiry of " + k + ": " + ttlA + " vs " + ttlB)
                    .isLessThanOrEqualTo(SAME_EXPIRY_MILLIS);
        }
    }

    /**
     * Key (without the prefix) to {value or the sorted set's size, PTTL}. A key due to expire within
     * {@value #EXPIRING_MILLIS} ms is left out: it may be gone on one side and not yet on the other (a
     * refund of a window that has ended rewrites its key with an expiry of 1 ms).
     */
    private static Map<String, String[]> state(String prefix) {
        var admin = RedisTestSupport.admin();
        Map<String, String[]> out = new HashMap<>();
        for (String k : RedisTestSupport.keys(prefix)) {
            long pttl = admin.pttl(k);
            if (pttl == -2 || (pttl >= 0 && pttl < EXPIRING_MILLIS)) {
                continue;
            }
            String value = "zset".equals(admin.type(k)) ? String.valueOf(admin.zcard(k)) : admin.get(k);
            out.put(k.substring(prefix.length()), new String[] {value, Long.toString(pttl)});
        }
        return out;
    }

    private static final long EXPIRING_MILLIS = 2_000;
    /**
     * Two expiries set from the same script clock differ by the real time between the two writes: on a
     * loaded machine more than a second; an error of a unit or a window would be minutes or hours.
     */
    private static final long SAME_EXPIRY_MILLIS = 10_000;

    private static String keyEndingWith(String prefix, String suffix) {
        return RedisTestSupport.keys(prefix).stream().filter(k -> k.endsWith(suffix)).findFirst().orElseThrow();
    }

    private static Decision withoutLease(Decision d) {
        return d instanceof Allowed a ? new Allowed(a.plan(), a.costs(), a.states()) : d;
    }
}
