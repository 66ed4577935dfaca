package dev.sluice.redis.client;

import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.spi.RetryBudgetStore;

/** The reference: the client's own in-memory budget ({@link RetryBudgetStore#inMemory}) passes the contract. */
class InMemoryRetryBudgetContractTest extends RetryBudgetStoreContract {

    @Override
    RetryBudgetStore budget(RetryBudgetConfig config) {
        return RetryBudgetStore.inMemory(config);
    }
}
