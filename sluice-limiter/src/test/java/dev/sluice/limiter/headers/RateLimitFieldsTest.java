package dev.sluice.limiter.headers;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class RateLimitFieldsTest {

    // SPEC §2.1: Free key, 10 req/s with burst 20 (q=20, w=2), 10,000 a day
    private static final Plan FREE = Plan.of("free", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10_000));

    @Test
    void freePlanPolicyFieldIsTheSpecLine() {
        assertThat(FREE.rateLimitPolicyField()).isEqualTo("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
    }

    @Test
    void policyFieldIsSerialisedOncePerPlan() {
        assertThat(FREE.rateLimitPolicyField()).isSameAs(FREE.rateLimitPolicyField());
    }

    @Test
    void rateLimitFieldAt1800AfterThirteenBurstAndSevenThousandSixHundredNinetyDailyIsTheSpecLine() {
        // SPEC §2.1: at 18:00 UTC, 13 of the burst and 7,690 of the day spent -> r=7 t=2, r=2310 t=21600
        ManualTimeSource clock = ManualTimeSource.at("2026-11-30T12:00:00Z");
        InMemoryLimiterStore store = new InMemoryLimiterStore(clock);
        for (int i = 0; i < 7_690 - 13; i++) { // spread over the afternoon: the bucket refills between
            assertThat(store.decide("k", FREE, Costs.ONE)).isInstanceOf(Allowed.class);
            clock.advance(Duration.ofMillis(2_000));
        }
        clock.advance(Duration.between(clock.now(), Instant.parse("2026-11-30T18:00:00Z")));
        Decision last = null;
        for (int i = 0; i < 13; i++) {
            last = store.decide("k", FREE, Costs.ONE);
        }
        assertThat(last).isInstanceOf(Allowed.class);
        assertThat(RateLimitFields.rateLimitField(last.states()))
                .isEqualTo("\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
    }

    @Test
    void contentBytesPoliciesCarryTheirUnitAndRequestPoliciesOmitTheDefault() {
        Plan upload = Plan.of("upload",
                BurstPolicy.of("burst", 20, 2),
                new QuotaPolicy("bytes", 1_000_000, CalendarWindow.daily(), QuotaUnit.CONTENT_BYTES, null));
        assertThat(upload.rateLimitPolicyField())
                .isEqualTo("\"burst\";q=20;w=2, \"bytes\";q=1000000;w=86400;qu=\"content-bytes\"");
    }

    @Test
    void concurrencyPoliciesCarryTheirUnitWithoutWindowAndTOnlyOnADenial() {
        // SPEC §1 / §2.1: qu="concurrent-requests"; a concurrency policy has no window, so no w
        Plan plan = Plan.of("conc", BurstPolicy.of("burst", 20, 2), ConcurrencyPolicy.of("inflight", 2));
        assertThat(plan.rateLimitPolicyField())
                .isEqualTo("\"burst\";q=20;w=2, \"inflight\";q=2;qu=\"concurrent-requests\"");
        InMemoryLimiterStore store = new InMemoryLimiterStore(ManualTimeSource.at("2026-11-30T12:00:00Z"));
        Decision first = store.decide("k", plan, Costs.ONE);
        assertThat(RateLimitFields.rateLimitField(first.states()))
                .isEqualTo("\"burst\";r=19;t=1, \"inflight\";r=1");
        store.decide("k", plan, Costs.ONE);
        Decision denied = store.decide("k", plan, Costs.ONE);
        assertThat(RateLimitFields.rateLimitField(denied.states()))
                .isEqualTo("\"burst\";r=18;t=1, \"inflight\";r=0;t=1");
    }
}
