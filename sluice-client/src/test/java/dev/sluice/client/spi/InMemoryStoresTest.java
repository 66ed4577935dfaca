package dev.sluice.client.spi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientCore;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class InMemoryStoresTest {

    @Test
    void twoCoresGivenOneBucketShareItsBurst() throws Exception {
        // SPEC §4.8: cores under one provider limit share one bucket, so their sum stays under it
        ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
        TokenBucketStore bucket = TokenBucketStore.inMemory(time.nanoTime());
        ClientConfig config = ClientConfig.defaults().withPacer(PacerConfig.documented(10, 10));
        ClientCore<String> a = ClientCore.create(config, CoreEnvironment.of(time, new SplittableRandom(1)).withBucket(bucket));
        ClientCore<String> b = ClientCore.create(config, CoreEnvironment.of(time, new SplittableRandom(2)).withBucket(bucket));
        for (int i = 0; i < 8; i++) {
            a.open(CallSpec.of("GET", "api"), "a");
            b.open(CallSpec.of("GET", "api"), "b");
        }

        int started = a.poll().start().size() + b.poll().start().size();

        assertThat(started).isEqualTo(9); // one paced burst (90 % of 10, SPEC §4.6) between both, not 9 each
    }

    @Test
    void anInMemoryBudgetGrantsRetriesUpToItsRatio() {
        // SPEC §4.2: retries at most 10 % of requests over the window (no floor here)
        RetryBudgetStore budget = RetryBudgetStore.inMemory(RetryBudgetConfig.strict());
        for (int i = 0; i < 50; i++) {
            budget.recordRequest(0);
        }
        int granted = 0;
        for (int i = 0; i < 20; i++) {
            granted += budget.tryAcquireRetry(Duration.ofSeconds(1).toNanos()) ? 1 : 0;
        }
        assertThat(granted).isEqualTo(5);
    }
}
