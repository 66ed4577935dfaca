package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.Unavailable;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The README's example, on the test Redis (production mode: the server's clock), under a prefix of its own. */
@ExtendWith(RedisTestSupport.class)
class ReadmeExampleTest {

    @Test
    void theReadmeExampleDecidesOnRedis() {
        List<String> out = new ArrayList<>();
        String prefix = RedisTestSupport.newPrefix("readme");
        // as in the README, plus a prefix of its own and a timeout generous enough for a cold JVM on a
        // busy machine (the example is about the answer, not the fallback)
        try (RedisLimiterStore store = RedisLimiterStore.open(RedisTestSupport.URI, RedisLimiterConfig.builder()
                .keyPrefix(prefix).replicaCount(3).decisionTimeout(java.time.Duration.ofSeconds(5)).build())) {
            Plan free = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));

            switch (store.decide("sk_test_free_1", free, Costs.ONE)) {
                case Allowed a -> a.states().forEach(s -> out.add(s.policy().name() + " r=" + s.remaining()));
                case Denied d -> out.add("429 " + d.outcome().wireName() + " retry-after=" + d.retryAfterSeconds());
                case CostExceedsBurst c -> out.add("400 cost_exceeds_burst: " + c.policy().name());
                case Unavailable u -> out.add("503 overloaded: retry-after=" + u.retryAfterSeconds());
            }

            assertThat(store.stats().redisDecisions()).isEqualTo(1);
        } finally {
            RedisTestSupport.deletePrefix(prefix);
        }
        assertThat(out).containsExactly("burst r=19", "daily r=9999");
    }
}
