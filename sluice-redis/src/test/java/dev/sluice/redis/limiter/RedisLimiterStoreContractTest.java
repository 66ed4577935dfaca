package dev.sluice.redis.limiter;

import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.limiter.spi.LimiterStoreContract;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The limiter store contract (the same suite the in-memory store passes) on a real Redis, in test
 * mode: the script takes "now" from the contract's fake clock.
 */
@ExtendWith(RedisTestSupport.class)
class RedisLimiterStoreContractTest extends LimiterStoreContract {

    private String prefix;

    @Override
    protected LimiterStore newStore(TimeSource time) {
        prefix = RedisTestSupport.newPrefix("contract");
        return new RedisLimiterStore(RedisTestSupport.endpoint(), RedisLimiterConfig.builder()
                .keyPrefix(prefix)
                .scriptTime(time)
                .localTime(time)
                // fake time races ahead of real time; keep keys for the whole test whatever it computes
                .minKeyTtl(Duration.ofMinutes(5))
                // a test machine may stall; the contract is about decisions, not about the fallback
                .decisionTimeout(Duration.ofSeconds(5))
                .build());
    }

    @AfterEach
    void deleteKeys() {
        RedisTestSupport.deletePrefix(prefix);
    }
}
