package dev.sluice.redis.client;

import dev.sluice.client.spi.TokenBucketStore;

/** The reference: the client's own in-memory bucket ({@link TokenBucketStore#inMemory}) passes the contract. */
class InMemoryTokenBucketContractTest extends TokenBucketStoreContract {

    @Override
    TokenBucketStore bucket(double perSecond, double capacity, long nowNanos) {
        TokenBucketStore b = TokenBucketStore.inMemory(nowNanos);
        b.configure(perSecond, capacity, nowNanos);
        return b;
    }

    @Override
    TokenBucketStore unlimited(long nowNanos) {
        return TokenBucketStore.inMemory(nowNanos);
    }

    @Override
    long resolutionNanos() {
        return 1;
    }
}
