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
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The same randomised traces decided by the in-memory store (the reference) and by Redis must give
 * identical decisions: same allow/deny, same denying and violated policies, same exact wait, same
 * {@code r}, {@code t}, used and reset_at for every policy, and identical usage reads and refunds.
 * Several keys, costs 1–3, whole-millisecond steps, burst + daily + monthly plans and a plan with a
 * concurrency policy whose slots are taken and released, starting 2.5 min
 * before midnight UTC on 30 November so the trace crosses both a daily and a monthly boundary.
 */
@ExtendWith(RedisTestSupport.class)
class RedisInMemoryDifferentialTest {

    private static final List<Plan> PLANS = List.of(
            // SPEC §2.1's Free plan
            Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000)),
            // small enough that the daily quota denies before midnight and comes back after it
            Plan.of("tight", BurstPolicy.of("burst", 5, 1), QuotaPolicy.daily("daily", 40)),
            // 7 per 3 s: 7 ticks per microsecond, the emission interval is not a whole microsecond
            Plan.of("odd", BurstPolicy.of("burst", 7, 3), QuotaPolicy.monthly("monthly", 30, 1)),
            Plan.of("burst-only", BurstPolicy.of("burst", 3, 1)),
            // at most 3 in flight (SPEC §1 concurrent-requests), behind a burst that also denies
            Plan.of("conc", BurstPolicy.of("burst", 4, 1), ConcurrencyPolicy.of("inflight", 3)));

    @ParameterizedTest(name = "seed {0}, deny cache {1}")
    @CsvSource({"1, true", "2, true", "3, false", "4, false"})
    void redisDecidesEveryTraceExactlyAsTheInMemoryStore(long seed, boolean denyCache) {
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T23:57:30Z");
        String prefix = RedisTestSupport.newPrefix("differential");
        InMemoryLimiterStore memory = new InMemoryLimiterStore(time);
        RedisLimiterStore redis = new RedisLimiterStore(RedisTestSupport.endpoint(), RedisLimiterConfig.builder()
                .keyPrefix(prefix)
                .scriptTime(time)
                .localTime(time)
                .minKeyTtl(Duration.ofMinutes(5))
                .decisionTimeout(Duration.ofSeconds(5))
                .denyCacheMaxAge(denyCache ? Duration.ofSeconds(1) : Duration.ZERO)
                .build());
        try {
            SplittableRandom random = new SplittableRandom(seed);
            Map<String, List<Allowed>> charges = new HashMap<>();
            Map<String, List<Allowed>> inFlight = new HashMap<>();
            int releases = 0;
            Map<String, Integer> denialsByPolicy = new HashMap<>();
            int decisions = 0;
            for (int step = 0; step < 2_500; step++) {
                time.advance(Duration.ofMillis(random.nextInt(0, 140)));
                int k = random.nextInt(8);
                String key = "key-" + k;
                Plan plan = PLANS.get(k % PLANS.size());
                String where = "seed " + seed + " step " + step + " at " + time.now() + " " + key + " (" + plan.name() + ")";
                int op = random.nextInt(100);
                List<Allowed> held = inFlight.getOrDefault(key, List.of());
                if (plan.hasConcurrencyPolicy() && op >= 55 && op < 85 && !held.isEmpty()) {
                    // the request ended: its slot comes back (each admission released once)
                    Allowed ended = held.remove(random.nextInt(held.size()));
                    memory.release(key, ended);
                    redis.release(key, ended);
                    releases++;
                    assertThat(redis.usage(key, plan)).as(where + " after release").isEqualTo(memory.usage(key, plan));
                } else if (op < 85) {
                    Costs costs = Costs.requests(random.nextInt(1, 4));
                    Decision expected = memory.decide(key, plan, costs);
                    Decision actual = redis.decide(key, plan, costs);
                    // the in-memory store counts slots; Redis names each (Allowed.lease): compare the rest
                    assertThat(withoutLease(actual)).as(where + " cost " + costs.requests()).isEqualTo(expected);
                    if (actual instanceof Allowed a) {
                        assertThat(a.lease().isEmpty()).as(where + " permit").isEqualTo(!plan.hasConcurrencyPolicy());
                    }
                    assertThat(redis.usage(key, plan)).as(where + " usage after").isEqualTo(memory.usage(key, plan));
                    decisions++;
                    if (actual instanceof Allowed a) {
                        charges.computeIfAbsent(key, x -> new ArrayList<>()).add(a);
                        if (plan.hasConcurrencyPolicy()) {
                            inFlight.computeIfAbsent(key, x -> new ArrayList<>()).add(a); // Redis's permit id
                        }
                    } else if (expected instanceof Denied d) {
                        denialsByPolicy.merge(plan.name() + "/" + d.policy().name(), 1, Integer::sum);
                    }
                } else if (op < 95) {
                    assertThat(redis.usage(key, plan)).as(where + " usage").isEqualTo(memory.usage(key, plan));
                } else {
                    List<Allowed> mine = charges.getOrDefault(key, List.of());
                    if (!mine.isEmpty()) {
                        Allowed charge = mine.remove(random.nextInt(mine.size()));
                        memory.refund(key, charge);
                        redis.refund(key, charge);
                        assertThat(redis.usage(key, plan)).as(where + " after refund").isEqualTo(memory.usage(key, plan));
                    }
                }
            }
            assertThat(time.now()).isAfter(Instant.parse("2026-12-01T00:00:00Z"));
            assertThat(decisions).isGreaterThan(2_000);
            // the trace exercised every kind of denial
            assertThat(denialsByPolicy).containsKeys("tight/burst", "tight/daily", "odd/burst", "burst-only/burst",
                    "conc/inflight", "conc/burst");
            assertThat(releases).isGreaterThan(50);
        } finally {
            redis.close();
            RedisTestSupport.deletePrefix(prefix);
        }
    }

    private static Decision withoutLease(Decision d) {
        return d instanceof Allowed a ? new Allowed(a.plan(), a.costs(), a.states()) : d;
    }
}
