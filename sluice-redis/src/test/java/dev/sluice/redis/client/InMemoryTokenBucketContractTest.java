package dev.sluice.redis.client;

import dev.sluice.client.internal.pacing.InMemoryTokenBucket;
import dev.sluice.client.spi.TokenBucketStore;

/** The reference: the client's own in-memory bucket passes the contract. */
class InMemoryTokenBucketContractTest extends TokenBucketStoreContract {

    @Override
    TokenBucketStore bucket(double perSecond, double capacity, long nowNanos) {
        return new InMemoryTokenBucket(perSecond, capacity, nowNanos);
    }

    @Override
    TokenBucketStore unlimited(long nowNanos) {
        return InMemoryTokenBucket.unlimited(nowNanos);
    }

    @Override
    long resolutionNanos() {
        return 1;
    }
}
