package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.internal.LuaScript;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two processes' stores (two connections) on one limit, on the server's {@code TIME}: what one does to
 * the shared state, the other sees (SPEC §4.8).
 */
@ExtendWith(RedisTestSupport.class)
class SharedBucketTest {

    private static final String PREFIX = RedisTestSupport.newPrefix("sdk-shared");
    private static final long MS = 1_000_000L;
    private static RedisEndpoint second;

    @BeforeAll
    static void secondProcess() {
        second = RedisEndpoint.connect(RedisTestSupport.URI);
        RedisTestSupport.awaitUp(second);
    }

    @AfterAll
    static void cleanUp() {
        if (second != null) {
            second.close();
        }
        RedisTestSupport.deletePrefix(PREFIX);
    }

    private static SharedLimitsConfig config() {
        // generous timeout: these tests are about shared state, not about a slow machine's fallback
        return SharedLimitsConfig.builder().keyPrefix(PREFIX).decisionTimeout(Duration.ofSeconds(5)).build();
    }

    private static String newLimit() {
        return "api-" + UUID.randomUUID();
    }

    private static long now() {
        return System.nanoTime();
    }

    @Test
    void twoProcessesDrawFromOneBucket() {
        String limit = newLimit();
        RedisTokenBucketStore a = new RedisTokenBucketStore(RedisTestSupport.endpoint(), limit, config());
        RedisTokenBucketStore b = new RedisTokenBucketStore(second, limit, config());
        a.configure(10, 10, now());
        b.configure(10, 10, now());
        for (int i = 0; i < 10; i++) {
            RedisTokenBucketStore s = i % 2 == 0 ? a : b;
            assertThat(s.tryAcquire(1, now())).as("token %d of the shared 10", i + 1).isZero();
        }
        // a bucket per process would hold 5 more for each; the shared one is empty: the next token is
        // at most 100 ms away (10/s), less whatever refilled while the loop ran
        long wait = b.tryAcquire(1, now());
        assertThat(wait).isPositive().isLessThanOrEqualTo(100 * MS);
        assertThat(a.stats().localAnswers() + b.stats().localAnswers()).isZero();
    }

    @Test
    void aRateLimitedAnswerSeenByOneProcessPausesTheOther() {
        String limit = newLimit();
        RedisTokenBucketStore a = new RedisTokenBucketStore(RedisTestSupport.endpoint(), limit, config());
        RedisTokenBucketStore b = new RedisTokenBucketStore(second, limit, config());
        a.configure(10, 10, now());
        b.configure(10, 10, now());
        long t = now();
        a.drainAndPause(t + 2_000 * MS, t); // a 429 with Retry-After: 2
        assertThat(a.available(now())).isZero(); // a round trip on a's connection: the pause is in Redis
        long wait = b.tryAcquire(1, now());
        long elapsed = now() - t;
        // the rest of the pause, then one token at 10/s
        assertThat(wait).isGreaterThan(2_000 * MS - elapsed).isLessThanOrEqualTo(2_100 * MS);
    }

    @Test
    void theRemainingOneProcessReadFromTheProviderLowersTheSharedBucket() {
        String limit = newLimit();
        RedisTokenBucketStore a = new RedisTokenBucketStore(RedisTestSupport.endpoint(), limit, config());
        RedisTokenBucketStore b = new RedisTokenBucketStore(second, limit, config());
        a.configure(10, 10, now());
        b.configure(10, 10, now());
        a.clamp(2, now()); // a response said RateLimit: "burst";r=2
        assertThat(a.available(now())).isLessThan(2.5);
        assertThat(b.available(now())).as("b sees it").isBetween(2.0, 2.5);
        assertThat(b.tryAcquire(1, now())).isZero();
        assertThat(b.tryAcquire(1, now())).isZero();
        assertThat(a.tryAcquire(1, now())).isPositive();
    }

    @Test
    void aProcessThatKnowsNoLimitPacesByTheOneAnotherLearned() {
        String limit = newLimit();
        RedisTokenBucketStore a = new RedisTokenBucketStore(RedisTestSupport.endpoint(), limit, config());
        RedisTokenBucketStore b = new RedisTokenBucketStore(second, limit, config());
        a.configure(5, 5, now()); // a read RateLimit-Policy: "burst";q=5;w=1
        assertThat(a.tryAcquire(1, now())).isZero();
        assertThat(b.capacity()).as("b has learned nothing yet").isInfinite();
        for (int i = 0; i < 4; i++) {
            assertThat(b.tryAcquire(1, now())).isZero();
        }
        assertThat(b.tryAcquire(1, now())).isPositive();
        assertThat(b.capacity()).isEqualTo(5.0);
    }

    @Test
    void twoProcessesShareOneRetryBudget() {
        String limit = newLimit();
        SharedLimitsConfig c = config().toBuilder().budget(RetryBudgetConfig.strict()).build();
        RedisRetryBudgetStore a = new RedisRetryBudgetStore(RedisTestSupport.endpoint(), limit, c);
        RedisRetryBudgetStore b = new RedisRetryBudgetStore(second, limit, c);
        for (int i = 0; i < 50; i++) {
            a.recordRequest(now());
            b.recordRequest(now());
        }
        // each window read runs after its own connection's requests: after a's, a sees at least its 50
        assertThat(a.window(now())[0]).isBetween(50L, 100L);
        assertThat(b.window(now())[0]).isEqualTo(100);
        int granted = 0;
        for (int i = 0; i < 20; i++) {
            if ((i % 2 == 0 ? a : b).tryAcquireRetry(now())) {
                granted++;
            }
        }
        assertThat(granted).as("10 %% of the 100 requests of both, not 10 %% of each one's 50 twice").isEqualTo(10);
        assertThat(b.window(now())).containsExactly(100, 10);
    }

    @Test
    void everyKeyWrittenHasAnExpiryR16() {
        String limit = newLimit();
        RedisTokenBucketStore bucket = new RedisTokenBucketStore(RedisTestSupport.endpoint(), limit, config());
        RedisRetryBudgetStore budget = new RedisRetryBudgetStore(RedisTestSupport.endpoint(), limit, config());
        bucket.configure(0.5, 100, now()); // 200 s from empty to full
        for (int i = 0; i < 100; i++) {
            bucket.tryAcquire(1, now());
        }
        budget.recordRequest(now());
        budget.tryAcquireRetry(now());
        SharedKeys keys = SharedKeys.of(PREFIX, limit);
        List<String> written = RedisTestSupport.keys(PREFIX + "{" + limit + "}");
        assertThat(written).containsExactlyInAnyOrder(keys.bucket(), keys.budget());
        long bucketTtl = RedisTestSupport.admin().pttl(keys.bucket());
        long budgetTtl = RedisTestSupport.admin().pttl(keys.budget());
        // the empty bucket lives until it is full again (200 s), the budget a window and a slot
        assertThat(bucketTtl).isBetween(195_000L, 200_002L);
        assertThat(budgetTtl).isBetween(55_000L, 62_000L);
        // a full bucket keeps its learned rate for minKeyTtl (60 s)
        String other = newLimit();
        RedisTokenBucketStore full = new RedisTokenBucketStore(RedisTestSupport.endpoint(), other, config());
        full.configure(10, 10, now());
        full.clamp(10, now());
        full.available(now());
        assertThat(RedisTestSupport.admin().pttl(SharedKeys.of(PREFIX, other).bucket())).isBetween(55_000L, 60_000L);
    }

    @Test
    void aLimitsKeysShareOneClusterSlotAndItsNameIsEscaped() {
        SharedKeys keys = SharedKeys.of("sluice:sdk:", "api.example.com");
        assertThat(keys.bucket()).isEqualTo("sluice:sdk:{api.example.com}:bucket");
        assertThat(keys.budget()).isEqualTo("sluice:sdk:{api.example.com}:budget");
        assertThat(SlotHash.getSlot(keys.bucket())).isEqualTo(SlotHash.getSlot(keys.budget()))
                .isEqualTo(SlotHash.getSlot("api.example.com"));
        SharedKeys odd = SharedKeys.of("p:", "a{b}%");
        assertThat(odd.bucket()).isEqualTo("p:{a%7Bb%7D%25}:bucket");
        assertThat(SlotHash.getSlot(odd.bucket())).isEqualTo(SlotHash.getSlot("a%7Bb%7D%25"));
    }

    @Test
    void aScriptRedisHasNeverSeenIsLoadedOnNoscriptAndTheCallAnswered() {
        String limit = newLimit();
        LuaScript fresh = RedisTokenBucketStore.bucketScript().withComment("noscript test " + UUID.randomUUID());
        RedisTokenBucketStore s = new RedisTokenBucketStore(RedisTestSupport.endpoint(), SharedKeys.of(PREFIX, limit),
                config(), fresh, limit, false);
        s.configure(10, 10, now());
        assertThat(s.tryAcquire(1, now())).isZero();
        assertThat(s.stats().scriptLoads()).isEqualTo(1);
        assertThat(s.tryAcquire(1, now())).isZero();
        assertThat(s.stats().scriptLoads()).isEqualTo(1);
        assertThat(s.stats().localAnswers()).isZero();
    }
}
