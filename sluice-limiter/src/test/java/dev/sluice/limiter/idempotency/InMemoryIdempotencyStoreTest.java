package dev.sluice.limiter.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.TimeSource;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class InMemoryIdempotencyStoreTest extends IdempotencyStoreContract {

    @Override
    protected IdempotencyStore newStore(TimeSource time) {
        return new InMemoryIdempotencyStore(time, 16);
    }

    @Test
    void expiredRecordsAreSweptOnceTheThresholdIsReached() {
        InMemoryIdempotencyStore s = (InMemoryIdempotencyStore) store;
        for (int i = 0; i < 15; i++) {
            s.begin(new IdempotencyKey("sk_sweep", "k" + i), POST_LABELS, LEASE);
        }
        elapse(LEASE);
        assertThat(s.size()).isEqualTo(15); // expired, not yet swept

        s.begin(new IdempotencyKey("sk_sweep", "k-new"), POST_LABELS, LEASE); // the 16th record: sweep

        assertThat(s.size()).isEqualTo(1);
    }

    @Test
    void leasesSurviveAMonotonicOriginNearOverflow() {
        time.setNanoTime(Long.MAX_VALUE - Duration.ofSeconds(1).toNanos());
        acquire(KEY, POST_LABELS);
        elapse(Duration.ofSeconds(2)); // the monotonic reading wraps

        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isInstanceOf(Claim.InFlight.class);
        elapse(LEASE);
        assertThat(store.begin(KEY, POST_LABELS, LEASE)).isInstanceOf(Claim.Acquired.class);
    }
}
