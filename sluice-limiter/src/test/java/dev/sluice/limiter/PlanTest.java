package dev.sluice.limiter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.wire.snapshot.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanTest {

    @Test
    void r14bZeroQuotaIsRejectedNamingTheField() {
        assertThatThrownBy(() -> BurstPolicy.of("burst", 0, 2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("q: must be > 0, was 0 (policy burst)");
        assertThatThrownBy(() -> QuotaPolicy.daily("daily", -1))
                .hasMessage("q: must be > 0, was -1 (policy daily)");
    }

    @Test
    void r14bZeroWindowIsRejectedNamingTheField() {
        assertThatThrownBy(() -> BurstPolicy.of("burst", 20, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("w: must be in 1..");
    }

    @Test
    void duplicatePolicyNamesAreRejected() {
        assertThatThrownBy(() -> Plan.of("free", BurstPolicy.of("x", 1, 1), QuotaPolicy.daily("x", 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policies[1].name: duplicate \"x\" (plan free)");
    }

    @Test
    void anEmptyPlanIsRejected() {
        assertThatThrownBy(() -> Plan.of("free", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("policies: must not be empty (plan free)");
    }

    @Test
    void blankOrNonAsciiNamesAreRejected() {
        assertThatThrownBy(() -> BurstPolicy.of(" ", 1, 1)).hasMessageStartingWith("name:");
        assertThatThrownBy(() -> BurstPolicy.of("b\u00e9", 1, 1)).hasMessageStartingWith("name:");
        assertThatThrownBy(() -> Plan.of("", BurstPolicy.of("b", 1, 1))).hasMessageStartingWith("name:");
    }

    @Test
    void concurrentRequestsIsNotABurstOrQuotaUnit() {
        assertThatThrownBy(() -> new BurstPolicy("c", 5, 1, QuotaUnit.CONCURRENT_REQUESTS, null))
                .hasMessageStartingWith("unit:");
    }

    @Test
    void aDenialByABurstPolicyIsRateLimitedAndByAQuotaPolicyQuotaExhausted() {
        // SPEC §3.4
        assertThat(BurstPolicy.of("b", 1, 1).denialOutcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(QuotaPolicy.daily("d", 1).denialOutcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
    }

    @Test
    void quotaPoliciesReportTheirNominalWindow() {
        assertThat(QuotaPolicy.daily("d", 1).windowSeconds()).isEqualTo(86_400);
        assertThat(QuotaPolicy.monthly("m", 1, 1).windowSeconds()).isEqualTo(2_592_000);
    }

    @Test
    void aKeysRenewalDayMovesOnlyMonthlyWindows() {
        Plan plan = Plan.of("pro", BurstPolicy.of("burst", 100, 10), QuotaPolicy.daily("daily", 5),
                QuotaPolicy.monthly("monthly", 1_000, 1));

        Plan moved = plan.withAnchorDay(15);

        assertThat(((QuotaPolicy) moved.policy(2)).window()).isEqualTo(CalendarWindow.monthly(15));
        assertThat(moved.policy(0)).isSameAs(plan.policy(0));
        assertThat(moved.policy(1)).isSameAs(plan.policy(1));
        assertThat(plan.withAnchorDay(1)).isSameAs(plan);
        assertThat(Plan.of("d", QuotaPolicy.daily("daily", 5)).withAnchorDay(9).policy(0))
                .isEqualTo(QuotaPolicy.daily("daily", 5));
    }

    @Test
    void costsChargeEachPolicyInItsOwnUnit() {
        Costs costs = new Costs(10, 4_096);

        assertThat(costs.costFor(BurstPolicy.of("r", 100, 1))).isEqualTo(10);
        assertThat(costs.costFor(new BurstPolicy("b", 100_000, 1, QuotaUnit.CONTENT_BYTES, null))).isEqualTo(4_096);
        assertThatThrownBy(() -> new Costs(-1, 0)).hasMessageStartingWith("requests:");
    }

    @Test
    void aDenialsRetryAfterIsItsWaitRoundedUpAndAtLeastOneSecond() {
        Plan plan = Plan.of("p", BurstPolicy.of("b", 1, 1));
        PolicyState s = new PolicyState(plan.policy(0), 0, 1, 1, PolicyState.NO_RESET_AT);

        Denied d = new Denied(plan, plan.policy(0), java.time.Duration.ofMillis(1), List.of(plan.policy(0)), List.of(s));
        Denied longer = new Denied(plan, plan.policy(0), java.time.Duration.ofMillis(292_052), List.of(plan.policy(0)),
                List.of(s));

        assertThat(d.retryAfterSeconds()).isEqualTo(1);
        assertThat(longer.retryAfterSeconds()).isEqualTo(293); // R02: 292.052 s => 293
        assertThat(longer.states().get(0).resetSeconds()).isEqualTo(293);
    }

    @Test
    void costExceedingQuotaNamesTheFirstPolicyItExceeds() {
        // SPEC §3.10: a cost above a policy's quota can never be admitted
        Plan plan = Plan.of("pro", BurstPolicy.of("burst", 20, 2), QuotaPolicy.daily("daily", 10),
                ConcurrencyPolicy.of("inflight", 1));
        assertThat(plan.indexOfCostExceedingQuota(Costs.ONE)).isEqualTo(-1);
        assertThat(plan.indexOfCostExceedingQuota(new Costs(10, 1_000_000))).isEqualTo(-1);
        assertThat(plan.indexOfCostExceedingQuota(Costs.requests(11))).isEqualTo(1);
        assertThat(plan.indexOfCostExceedingQuota(Costs.requests(21))).isEqualTo(0);
        assertThat(plan.indexOfCostExceedingQuota(Costs.requests(0))).isEqualTo(-1);
    }

    @Test
    void contentBytesAreCheckedAgainstByteQuotasOnly() {
        Plan plan = Plan.of("upload", BurstPolicy.of("burst", 5, 1),
                new BurstPolicy("bytes", 1000, 1, QuotaUnit.CONTENT_BYTES, null));
        assertThat(plan.indexOfCostExceedingQuota(new Costs(1, 1000))).isEqualTo(-1);
        assertThat(plan.indexOfCostExceedingQuota(new Costs(1, 1001))).isEqualTo(1);
        assertThat(plan.indexOfCostExceedingQuota(new Costs(6, 1001))).isEqualTo(0);
    }
}
