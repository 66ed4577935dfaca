package dev.sluice.limiter.headers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.Unavailable;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.wire.problem.ProblemDetails;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** SPEC §3.4: the status and problem code of every decision the limiter does not allow, from real decisions. */
class RejectionTest {

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T12:00:00Z");
    private final InMemoryLimiterStore store = new InMemoryLimiterStore(time);

    @Test
    void aBurstDenialIs429RateLimitedAndAQuotaDenialIs429QuotaExhausted() {
        Plan burst = Plan.of("b", BurstPolicy.of("burst", 1, 10), QuotaPolicy.daily("daily", 100));
        store.decide("k1", burst, Costs.ONE);
        Decision denied = store.decide("k1", burst, Costs.ONE);
        Plan quota = Plan.of("q", BurstPolicy.of("burst", 100, 1), QuotaPolicy.daily("daily", 1));
        store.decide("k2", quota, Costs.ONE);
        Decision spent = store.decide("k2", quota, Costs.ONE);

        assertThat(Rejection.of(denied)).contains(Rejection.RATE_LIMITED);
        assertThat(Rejection.RATE_LIMITED.status()).isEqualTo(429);
        assertThat(Rejection.RATE_LIMITED.code()).isEqualTo("rate_limited");
        assertThat(Rejection.of(spent)).contains(Rejection.QUOTA_EXHAUSTED);
        assertThat(Rejection.QUOTA_EXHAUSTED.status()).isEqualTo(429);
        assertThat(Rejection.QUOTA_EXHAUSTED.code()).isEqualTo("quota_exhausted");
    }

    @Test
    void tooLargeACostIs400WithoutRetryAfterAndAStoreOutageIs503Overloaded() {
        Plan plan = Plan.of("b", BurstPolicy.of("burst", 5, 10));
        Decision tooBig = store.decide("k", plan, Costs.requests(6));

        assertThat(Rejection.of(tooBig)).contains(Rejection.COST_EXCEEDS_BURST);
        assertThat(Rejection.COST_EXCEEDS_BURST.status()).isEqualTo(400);
        assertThat(Rejection.COST_EXCEEDS_BURST.hasRetryAfter()).isFalse(); // SPEC §3.10: waiting cannot help
        assertThat(Rejection.of(new Unavailable(plan, Duration.ofSeconds(1), "redis down")))
                .contains(Rejection.OVERLOADED);
        assertThat(Rejection.OVERLOADED.status()).isEqualTo(503);
        assertThat(Rejection.OVERLOADED.code()).isEqualTo("overloaded");
        assertThat(Rejection.of(store.decide("k", plan, Costs.ONE))).isEmpty(); // allowed
    }

    @Test
    void theProblemCarriesTypeTitleAndStatus() {
        ProblemDetails p = Rejection.OVERLOADED.problem("https://x.example/errors/overloaded").retryAfterSeconds(1)
                .build();

        assertThat(p.status()).isEqualTo(503);
        assertThat(p.title()).isEqualTo("Overloaded");
        assertThat(p.typeCode()).isEqualTo("overloaded");
        assertThat(p.retryAfterSeconds()).isEqualTo(1L);
    }
}
