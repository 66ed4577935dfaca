package dev.sluice.redis.limiter;

import dev.sluice.limiter.spi.FailureMode;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;

/**
 * The fail-closed view of a fail-open store ({@link RedisLimiterStore#withFailureMode}) is the same
 * store while Redis answers: it passes the whole limiter store contract on a real Redis.
 */
class RedisFailureModeViewContractTest extends RedisLimiterStoreContractTest {

    @Override
    protected LimiterStore newStore(TimeSource time) {
        LimiterStore view = super.newStore(time).withFailureMode(FailureMode.FAIL_CLOSED);
        if (!view.toString().contains("FAIL_CLOSED view")) {
            throw new AssertionError("expected the fail-closed view, got " + view);
        }
        return view;
    }
}
