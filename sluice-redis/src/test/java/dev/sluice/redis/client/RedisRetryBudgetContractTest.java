package dev.sluice.redis.client;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.redis.RedisTestSupport;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;

/** The Redis budget passes the same contract, in caller-clock mode, each test on a budget of its own. */
@ExtendWith(RedisTestSupport.class)
class RedisRetryBudgetContractTest extends RetryBudgetStoreContract {

    private static final String PREFIX = RedisTestSupport.newPrefix("sdk-budget-contract");
    private static final AtomicInteger NAMES = new AtomicInteger();
    /** Long enough that a busy machine never sends a contract call to the local fallback. */
    static final java.time.Duration CONTRACT_TIMEOUT = java.time.Duration.ofSeconds(5);

    @AfterAll
    static void deleteKeys() {
        RedisTestSupport.deletePrefix(PREFIX);
    }

    @Override
    RetryBudgetStore budget(RetryBudgetConfig config) {
        SharedLimitsConfig c = SharedLimitsConfig.builder().keyPrefix(PREFIX).callerClock(true)
                .decisionTimeout(CONTRACT_TIMEOUT).budget(config).build();
        return new RedisRetryBudgetStore(RedisTestSupport.endpoint(), "limit-" + NAMES.incrementAndGet(), c);
    }
}
