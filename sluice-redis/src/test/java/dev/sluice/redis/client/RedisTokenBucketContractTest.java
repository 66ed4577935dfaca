package dev.sluice.redis.client;

import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.redis.RedisTestSupport;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Redis bucket passes the same contract, in caller-clock mode (the script takes the test's
 * readings as its clock), each test on a bucket of its own.
 */
@ExtendWith(RedisTestSupport.class)
class RedisTokenBucketContractTest extends TokenBucketStoreContract {

    private static final String PREFIX = RedisTestSupport.newPrefix("sdk-bucket-contract");
    private static final AtomicInteger NAMES = new AtomicInteger();
    /** Long enough that a busy machine never sends a contract call to the local fallback. */
    static final java.time.Duration CONTRACT_TIMEOUT = java.time.Duration.ofSeconds(5);

    static SharedLimitsConfig callerClock() {
        return SharedLimitsConfig.builder().keyPrefix(PREFIX).callerClock(true)
                .decisionTimeout(CONTRACT_TIMEOUT).build();
    }

    @AfterAll
    static void deleteKeys() {
        RedisTestSupport.deletePrefix(PREFIX);
    }

    @Override
    TokenBucketStore bucket(double perSecond, double capacity, long nowNanos) {
        TokenBucketStore b = unlimited(nowNanos);
        b.configure(perSecond, capacity, nowNanos);
        return b;
    }

    @Override
    TokenBucketStore unlimited(long nowNanos) {
        return new RedisTokenBucketStore(RedisTestSupport.endpoint(), "limit-" + NAMES.incrementAndGet(), callerClock());
    }

    @Override
    long resolutionNanos() {
        return 1_000;
    }
}
