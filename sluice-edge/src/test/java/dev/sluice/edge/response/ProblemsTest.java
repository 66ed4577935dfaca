package dev.sluice.edge.response;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.config.ProblemConfig;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.wire.problem.ProblemDetails;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProblemsTest {

    private static final BurstPolicy BURST = BurstPolicy.of("burst", 20, 2);
    private static final QuotaPolicy DAILY = QuotaPolicy.daily("daily", 10_000);
    private static final Plan FREE = Plan.of("free", BURST, DAILY);

    private static ProblemDetails body(EdgeResponse r) {
        return ProblemDetails.parse(new String(r.body(), StandardCharsets.UTF_8)).orElseThrow();
    }

    @Test
    void typeUrisAreBaseErrorsCodeOrTheIanaDraft11Types() {
        Problems sluice = new Problems(new ProblemConfig("https://docs.shiplane.example/", ProblemConfig.TypeUris.SLUICE));
        Problems iana = new Problems(new ProblemConfig("https://docs.shiplane.example", ProblemConfig.TypeUris.IANA));
        assertThat(sluice.type("quota_exhausted")).isEqualTo("https://docs.shiplane.example/errors/quota_exhausted");
        assertThat(iana.type("rate_limited")).isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
        assertThat(iana.type("quota_exhausted")).isEqualTo(Problems.IANA_QUOTA_EXCEEDED);
        assertThat(iana.type("overloaded"))
                .isEqualTo("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
        assertThat(iana.type("cost_exceeds_burst")).isEqualTo("https://docs.shiplane.example/errors/cost_exceeds_burst");
    }

    @Test
    void aDenialByBothPoliciesNamesTheLongerWaitAndListsBoth() {
        Denied d = new Denied(FREE, DAILY, Duration.ofSeconds(19_200), List.of(BURST, DAILY), List.of(
                new PolicyState(BURST, 0, 1, 20, PolicyState.NO_RESET_AT),
                new PolicyState(DAILY, 0, 19_200, 10_000, 1_764_547_200L)));
        EdgeResponse r = new Problems(ProblemConfig.DEFAULT).denied(d, Costs.ONE);
        ProblemDetails p = body(r);
        assertThat(p.limit()).isEqualTo("daily");
        assertThat(p.retryAfterSeconds()).isEqualTo(19_200);
        assertThat(p.violatedPolicies()).containsExactly("burst", "daily");
        assertThat(r.header("Retry-After")).hasValue("19200");
        assertThat(p.detail()).isEqualTo("10,000 of 10,000 requests used today (Free plan).");
    }

    @Test
    void aRepeatedDenialGetsTheSameBytesAndAnyChangedInputGetsItsOwn() {
        Problems problems = new Problems(ProblemConfig.DEFAULT);
        Denied first = new Denied(FREE, BURST, Duration.ofMillis(300), List.of(BURST), List.of(
                new PolicyState(BURST, 0, 2, 20, PolicyState.NO_RESET_AT)));
        Denied again = new Denied(FREE, BURST, Duration.ofMillis(300), List.of(BURST), List.of(
                new PolicyState(BURST, 0, 2, 20, PolicyState.NO_RESET_AT)));
        Denied later = new Denied(FREE, BURST, Duration.ofMillis(1_300), List.of(BURST), List.of(
                new PolicyState(BURST, 0, 2, 20, PolicyState.NO_RESET_AT)));

        EdgeResponse a = problems.denied(first, Costs.ONE);
        EdgeResponse b = problems.denied(again, Costs.ONE);
        EdgeResponse c = problems.denied(later, Costs.ONE);

        assertThat(b.body()).isSameAs(a.body()); // memoised: built once
        assertThat(c.body()).isNotEqualTo(a.body());
        assertThat(body(c).retryAfterSeconds()).isEqualTo(2);
        assertThat(c.header("Retry-After")).hasValue("2");
        assertThat(body(problems.denied(first, Costs.requests(3))).detail()).isNotEqualTo(body(a).detail());
    }

    @Test
    void aDenialOfACostlyRequestSaysWhatItCosts() {
        Denied d = new Denied(FREE, BURST, Duration.ofMillis(300), List.of(BURST), List.of(
                new PolicyState(BURST, 7, 2, 13, PolicyState.NO_RESET_AT),
                new PolicyState(DAILY, 100, 40, 9_900, 1_764_547_200L)));
        ProblemDetails p = body(new Problems(ProblemConfig.DEFAULT).denied(d, Costs.requests(10)));
        assertThat(p.detail()).isEqualTo("Burst limit of 20 requests per 2 seconds reached (Free plan). "
                + "This request costs 10.");
        assertThat(p.retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void aContentBytesPolicyIsDescribedInBytes() {
        BurstPolicy upload = new BurstPolicy("upload", 1_000_000, 1, QuotaUnit.CONTENT_BYTES, null);
        Plan plan = Plan.of("pro", upload);
        Denied d = new Denied(plan, upload, Duration.ofMillis(10), List.of(upload),
                List.of(new PolicyState(upload, 0, 1, 1_000_000, PolicyState.NO_RESET_AT)));
        assertThat(body(new Problems(ProblemConfig.DEFAULT).denied(d, new Costs(1, 5_000))).detail())
                .isEqualTo("Burst limit of 1,000,000 bytes per second reached (Pro plan). This request costs 5,000.");
    }

    @Test
    void overloadedIs503WithACeilingRetryAfterOfAtLeastOne() {
        EdgeResponse r = new Problems(ProblemConfig.DEFAULT).overloaded(Duration.ofMillis(1), "Shed.");
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("Retry-After")).hasValue("1");
        assertThat(r.header("Cache-Control")).hasValue("no-store");
        assertThat(body(r).retryAfterSeconds()).isEqualTo(1);
    }

    @Test
    void rateLimitFieldsCarryUnitAndPartitionKeyWhenAPolicyHasThem() {
        Plan plan = Plan.of("p", new BurstPolicy("up", 100, 1, QuotaUnit.CONTENT_BYTES, "tenant-7"),
                BurstPolicy.of("burst", 10, 1));
        List<Header> h = LimitFields.headers(plan, List.of(
                new PolicyState(plan.policy(0), 40, 1, 60, PolicyState.NO_RESET_AT),
                new PolicyState(plan.policy(1), 9, 1, 1, PolicyState.NO_RESET_AT)), 80);
        assertThat(h).containsExactly(
                new Header("RateLimit-Policy", "\"up\";q=100;w=1;qu=\"content-bytes\";pk=:dGVuYW50LTc=:, \"burst\";q=10;w=1"),
                new Header("RateLimit", "\"up\";r=40;t=1;pk=:dGVuYW50LTc=:, \"burst\";r=9;t=1"));
    }

    @Test
    void theWarningFieldListsEveryQuotaPolicyPastTheThreshold() {
        // SPEC §3.8: 8,000 of 10,000 is 80 %
        List<PolicyState> states = List.of(new PolicyState(BURST, 0, 2, 20, PolicyState.NO_RESET_AT),
                new PolicyState(DAILY, 2_000, 21_600, 8_000, 1_764_547_200L));
        assertThat(LimitFields.warningLine(states, 80)).isEqualTo("\"daily\";used=8000;q=10000");
        assertThat(LimitFields.warningLine(states, 81)).isNull();
        assertThat(LimitFields.crossedSoftLimit(states.get(1), 1, 80)).isTrue();
        assertThat(LimitFields.crossedSoftLimit(states.get(1), 0, 80)).isFalse();
        // a burst policy never warns, even when empty
        assertThat(LimitFields.pastSoftLimit(states.get(0), 1)).isFalse();
    }
}
