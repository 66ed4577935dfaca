package dev.sluice.limiter.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.TimeSource;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A store that overrides nothing is the store it forwards to: it passes the whole contract, every
 * method (the blocking and the asynchronous ones) reaching the delegate.
 */
class ForwardingLimiterStoreTest extends LimiterStoreContract {

    @Override
    protected LimiterStore newStore(TimeSource time) {
        return new ForwardingLimiterStore(new InMemoryLimiterStore(time)) {};
    }

    @Test
    void closeAndWithFailureModeReachTheDelegate() {
        AtomicBoolean closed = new AtomicBoolean();
        LimiterStore delegate = new ForwardingLimiterStore(new InMemoryLimiterStore(time)) {
            @Override
            public void close() {
                closed.set(true);
            }
        };
        LimiterStore forwarding = new ForwardingLimiterStore(delegate) {};

        assertThat(forwarding.withFailureMode(FailureMode.FAIL_CLOSED)).isSameAs(
                ((ForwardingLimiterStore) delegate).delegate());
        assertThat(forwarding.supportsConcurrencyPolicies()).isEqualTo(delegate.supportsConcurrencyPolicies());
        forwarding.close();
        assertThat(closed).isTrue();
    }
}
