package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.config.ProblemConfig;
import dev.sluice.edge.decision.Caller;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.escalation.EscalationConfig;
import dev.sluice.edge.escalation.RetryLoopEscalation;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.route.Route;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.config.KeyBinding;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** SPEC §3.12 on a fake clock: the stage in front of a limiter that says 429 with Retry-After: 1. */
class RetryLoopEscalationTest {

    private static final Plan PLAN = Plan.of("free", BurstPolicy.of("burst", 20, 2));
    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private Problems problems = new Problems(ProblemConfig.DEFAULT);
    private final RetryLoopEscalation stage = new RetryLoopEscalation(EscalationConfig.defaults(), time, () -> problems);

    private static EdgeRequest request(String key) {
        return new EdgeRequest(RequestHead.of("GET", "/v1/quotes", "Bearer " + key, "127.0.0.1"),
                Route.of("GET", "/v1/quotes"), new Caller.ApiKey(new KeyBinding(key, PLAN, 1)), Costs.ONE);
    }

    /** A limiter that denies {@code abuser} with Retry-After: 1 and admits everyone else. */
    private Verdict decide(String key) {
        return stage.apply(request(key), r -> {
            if (r.caller().limiterKey().equals("sk_abuser")) {
                return CompletableFuture.completedFuture(new Verdict.Answer(
                        new dev.sluice.edge.response.EdgeResponse(429,
                                List.of(new dev.sluice.edge.response.Header("Retry-After", "1")), new byte[0]),
                        new DecisionRecord("GET /v1/quotes", "free", DecisionOutcome.RATE_LIMITED, false)));
            }
            return CompletableFuture.completedFuture(new Verdict.Forward(r, List.of(), Optional.empty(),
                    new DecisionRecord("GET /v1/quotes", "free", DecisionOutcome.ALLOWED, false), List.of(),
                    List.of()));
        }).toCompletableFuture().join();
    }

    @Test
    void aTightLoopIsEscalatedThenBlockedWithinAMinuteAndAWellBehavedKeyIsUntouched() {
        int wellBehavedAdmitted = 0;
        Verdict last = null;
        int firstEscalationAtMillis = -1;
        for (int ms = 0; ms < 60_000; ms += 50) { // the abuser: 20 requests a second, ignoring Retry-After: 1
            last = decide("sk_abuser");
            if (firstEscalationAtMillis < 0 && stage.level("sk_abuser") > 0) {
                firstEscalationAtMillis = ms;
            }
            if (ms % 500 == 0 && decide("sk_polite") instanceof Verdict.Forward) { // 2 a second, never denied
                wellBehavedAdmitted++;
            }
            time.advanceMillis(50);
        }
        assertThat(firstEscalationAtMillis).isBetween(0, 60_000);
        assertThat(stage.level("sk_abuser")).isGreaterThan(EscalationConfig.defaults().maxDoublings()); // blocked
        assertThat(last).isInstanceOf(Verdict.Answer.class);
        Verdict.Answer blocked = (Verdict.Answer) last;
        assertThat(blocked.response().status()).isEqualTo(429);
        assertThat(blocked.record().outcome()).isEqualTo(DecisionOutcome.ESCALATED);
        long retryAfter = Long.parseLong(blocked.response().header("Retry-After").orElseThrow());
        assertThat(retryAfter).isBetween(1L, 120L); // honest: the block's time left (default 120 s)
        assertThat(new String(blocked.response().body())).contains("/errors/retry_loop_blocked");
        // SPEC §3.12: other keys are unaffected
        assertThat(wellBehavedAdmitted).isEqualTo(120);
        assertThat(stage.level("sk_polite")).isZero();
    }

    @Test
    void theBlockUsesTheIanaAbnormalUsageTypeWhenSwitchedOnAndDecaysByItself() {
        problems = new Problems(new ProblemConfig("https://sluice.dev/problems", ProblemConfig.TypeUris.IANA));
        Verdict last = null;
        for (int ms = 0; ms < 60_000; ms += 50) {
            last = decide("sk_abuser");
            time.advanceMillis(50);
        }
        assertThat(new String(((Verdict.Answer) last).response().body()))
                .contains("https://iana.org/assignments/http-problem-types#abnormal-usage-detected");

        time.advance(Duration.ofMinutes(10)); // no requests: the block ends and every level decays
        assertThat(stage.level("sk_abuser")).isZero();
    }

    @Test
    void aBlockedKeyGetsOneAnswerPerSecondOfItsRetryAfterAndANewOneAfterAReload() {
        for (int ms = 0; ms < 60_000; ms += 50) {
            decide("sk_abuser");
            time.advanceMillis(50);
        }
        Verdict.Answer first = (Verdict.Answer) decide("sk_abuser");
        Verdict.Answer sameSecond = (Verdict.Answer) decide("sk_abuser");
        assertThat(sameSecond.response()).isSameAs(first.response()); // not rebuilt for each retry
        assertThat(sameSecond.record().outcome()).isEqualTo(DecisionOutcome.ESCALATED);

        time.advance(Duration.ofSeconds(1));
        Verdict.Answer secondLater = (Verdict.Answer) decide("sk_abuser");
        long before = Long.parseLong(first.response().header("Retry-After").orElseThrow());
        assertThat(secondLater.response().header("Retry-After")).hasValue(Long.toString(before - 1));

        problems = new Problems(new ProblemConfig("https://sluice.dev/problems", ProblemConfig.TypeUris.IANA));
        Verdict.Answer reloaded = (Verdict.Answer) decide("sk_abuser");
        assertThat(new String(reloaded.response().body()))
                .contains("https://iana.org/assignments/http-problem-types#abnormal-usage-detected");
    }
}
