package dev.sluice.redis.idempotency;

import dev.sluice.limiter.idempotency.IdempotencyStore;
import dev.sluice.limiter.idempotency.IdempotencyStoreContract;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The idempotency store contract (SPEC §3.11), run against Redis in test mode: the script takes the
 * fake clock's reading as "now", so leases and retention pass without waiting.
 */
@ExtendWith(RedisTestSupport.class)
class RedisIdempotencyStoreContractTest extends IdempotencyStoreContract {

    private final String prefix = RedisTestSupport.newPrefix("idem-contract");

    @Override
    protected IdempotencyStore newStore(TimeSource time) {
        return new RedisIdempotencyStore(RedisTestSupport.endpoint(), RedisIdempotencyConfig.builder()
                .keyPrefix(prefix).scriptTime(time)
                .operationTimeout(Duration.ofSeconds(5)) // a busy machine must not turn a slow reply into a failure
                .build());
    }

    @AfterEach
    void deleteKeys() {
        RedisTestSupport.deletePrefix(prefix);
    }
}
