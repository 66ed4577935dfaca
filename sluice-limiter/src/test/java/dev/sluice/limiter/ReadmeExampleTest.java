package dev.sluice.limiter;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.ManualTimeSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's example, on a fake clock at 18:00 UTC. */
class ReadmeExampleTest {

    @Test
    void theReadmeExamplePrintsTheFirstRequestsRateLimitValues() {
        List<String> out = new ArrayList<>();
        Plan free = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));
        LimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T18:00:00Z"));

        switch (store.decide("sk_test_free_1", free, Costs.ONE)) {
            case Allowed a -> a.states().forEach(s ->
                    out.add(s.policy().name() + " r=" + s.remaining() + " t=" + s.resetSeconds()));
            case Denied d -> out.add(d.outcome().wireName() + " limit=" + d.policy().name()
                    + " retry-after=" + d.retryAfterSeconds());
            case CostExceedsBurst c -> out.add("400 cost_exceeds_burst: " + c.policy().name());
            case Unavailable u -> out.add("503 overloaded: retry-after=" + u.retryAfterSeconds());
        }

        assertThat(out).containsExactly("burst r=19 t=1", "daily r=9999 t=21600");
    }
}
