package dev.sluice.client.internal.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientErrorException;
import dev.sluice.client.CostExceedsBurstException;
import dev.sluice.client.IdempotencyConflictException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.ServerErrorException;
import dev.sluice.client.Snapshots;
import dev.sluice.client.TransportException;
import dev.sluice.client.core.Answer;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SPEC §4.2, one rule per test. */
class ClassifierTest {

    private static final Instant NOW = Instant.parse("2026-11-30T18:40:00Z");
    private final Classifier classifier = new Classifier(Duration.ofSeconds(1));

    private Classification classify(RateLimitSnapshot s, String problemType, boolean safe) {
        return classifier.classify(new Answer.Response(s, problemType), safe, 1, NOW);
    }

    @Test
    void twoHundredIsASuccessAndAnAccept() {
        Classification c = classify(Snapshots.ok(), null, false);
        assertThat(c).isEqualTo(new Classification.Success(200));
        assertThat(c.accepted()).isTrue();
    }

    @Test
    void rateLimitedIsRetryableWithRetryAfterAsTheHintAndNotAnAccept() {
        Classification.Retryable r = (Classification.Retryable) classify(Snapshots.rateLimited(Duration.ofSeconds(7)), null, false);
        assertThat(r.kind()).isEqualTo(Classification.Kind.RATE_LIMITED);
        assertThat(r.hint()).isEqualTo(Duration.ofSeconds(7));
        assertThat(r.accepted()).isFalse();
    }

    @Test
    void malformedRetryAfterMeansNoHintSoTheCallerBacksOffWithJitterR01() {
        // R01: "Retry-After: -1" is malformed; the snapshot carries no hint; the retry still happens
        Classification.Retryable r = (Classification.Retryable) classify(Snapshots.rateLimited(null), null, false);
        assertThat(r.hint()).isNull();
    }

    @Test
    void withoutRetryAfterTheSpentPolicysAbsoluteResetPlusTheMarginIsTheHintR04() {
        // an epoch / RFC 3339 reset 2 s after the response's Date: + the 1 s margin
        RateLimitSnapshot s = Snapshots.rateLimited(null,
                Snapshots.absoluteReset(Snapshots.burst("burst", 20, 2, 0, Duration.ofSeconds(2))),
                Snapshots.quota("daily", 10_000, 86_400, 2310, Duration.ofSeconds(21_600)));
        assertThat(((Classification.Retryable) classify(s, null, false)).hint()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void aSpentPolicysRelativeResetIsTheHintAsTheServerCountedIt() {
        // draft-11 t=2 is the server's own ceiling: no margin (RateLimitSnapshot.suggestedWait)
        RateLimitSnapshot s = Snapshots.rateLimited(null, Snapshots.burst("burst", 20, 2, 0, Duration.ofSeconds(2)),
                Snapshots.quota("daily", 10_000, 86_400, 2310, Duration.ofSeconds(21_600)));
        assertThat(((Classification.Retryable) classify(s, null, false)).hint()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void theLongestResetAmongSpentPoliciesWinsR06() {
        RateLimitSnapshot s = Snapshots.rateLimited(null, Snapshots.burst("a", 20, 2, 0, Duration.ofSeconds(2)),
                Snapshots.burst("b", 100, 60, 0, Duration.ofSeconds(40)));
        assertThat(((Classification.Retryable) classify(s, null, false)).hint()).isEqualTo(Duration.ofSeconds(40));
    }

    @Test
    void theHintIsTheSnapshotsSuggestedWaitSoACachedAnswerWaitsOnlyWhatIsLeftOfRetryAfter() {
        // SPEC §2.5: a cached answer's policies are ignored and its Retry-After was counted from the origin
        RateLimitSnapshot s = new RateLimitSnapshot(429, Outcome.RATE_LIMITED, "test", Duration.ofSeconds(40), true,
                List.of(Snapshots.burst("burst", 20, 2, 0, Duration.ofSeconds(90))), null, null, Map.of(), List.of(),
                Duration.ofSeconds(30));
        Classification.Retryable r = (Classification.Retryable) classify(s, null, false);
        assertThat(r.hint()).isEqualTo(Duration.ofSeconds(10)).isEqualTo(s.suggestedWait(Duration.ofSeconds(1)).orElseThrow());
    }

    @Test
    void quotaExhaustedIsTerminalWithThePolicyAndTheResetInstantR08() {
        Instant reset = Instant.parse("2026-12-01T00:00:00Z");
        Classification.Terminal t = (Classification.Terminal) classify(
                Snapshots.quotaExhausted("daily", Duration.ofSeconds(19_200), reset), null, true);
        QuotaExceededException q = (QuotaExceededException) t.error();
        assertThat(q.policy()).contains("daily");
        assertThat(q.resetAt()).contains(reset);
        assertThat(t.accepted()).isFalse();
    }

    @Test
    void aQuotaResetIsDerivedFromRetryAfterWhenTheResponseGivesNoInstant() {
        RateLimitSnapshot s = new RateLimitSnapshot(429, Outcome.QUOTA_EXHAUSTED, "test", Duration.ofSeconds(19_200), false,
                List.of(), "daily", null, Map.of());
        QuotaExceededException q = (QuotaExceededException) ((Classification.Terminal) classify(s, null, true)).error();
        assertThat(q.resetAt()).contains(Instant.parse("2026-12-01T00:00:00Z")); // 18:40 + 19,200 s
    }

    @Test
    void aRateLimited429WhoseQuotaPolicyIsSpentIsAQuotaError() {
        RateLimitSnapshot s = Snapshots.rateLimited(null, Snapshots.quota("monthly", 1000, 2_592_000, 0, Duration.ofDays(3)));
        assertThat(classify(s, null, true)).isInstanceOf(Classification.Terminal.class);
    }

    @Test
    void overloadedIsRetryableAndNeverAQuotaErrorR09() {
        for (int status : new int[] {503, 529}) {
            Classification c = classify(Snapshots.overloaded(status, null), null, false);
            assertThat(c).isInstanceOf(Classification.Retryable.class);
            assertThat(((Classification.Retryable) c).kind()).isEqualTo(Classification.Kind.OVERLOADED);
            assertThat(((Classification.Retryable) c).giveUp().apply("x")).isNotInstanceOf(QuotaExceededException.class);
        }
    }

    @Test
    void anIdempotencyConflictIsATerminalClientBug() {
        Classification.Terminal t = (Classification.Terminal) classify(Snapshots.status(409, Outcome.CLIENT_ERROR),
                "https://docs.shiplane.example/errors/idempotency_conflict", true);
        assertThat(t.error()).isInstanceOf(IdempotencyConflictException.class);
    }

    @Test
    void a409WithRetryAfterOnAKeyedCallMeansTheFirstAttemptIsStillInFlight() {
        // SPEC §3.11: a duplicate while the first is in flight gets 409 with Retry-After: 1
        RateLimitSnapshot s = Snapshots.of(409, Outcome.CLIENT_ERROR, Duration.ofSeconds(1));
        Classification.Retryable r = (Classification.Retryable) classify(s, "https://x/errors/idempotency_conflict", true);
        assertThat(r.hint()).isEqualTo(Duration.ofSeconds(1));
        assertThat(classify(s, "https://x/errors/idempotency_conflict", false)).isInstanceOf(Classification.Terminal.class);
    }

    @Test
    void aPlain409WithoutAProblemTypeIsAnOrdinaryClientError() {
        Classification.Terminal t = (Classification.Terminal) classify(Snapshots.status(409, Outcome.CLIENT_ERROR), null, true);
        assertThat(t.error()).isInstanceOf(ClientErrorException.class);
    }

    @Test
    void costExceedsBurstIsTerminal() {
        Classification.Terminal t = (Classification.Terminal) classify(Snapshots.status(400, Outcome.CLIENT_ERROR),
                "https://docs.shiplane.example/errors/cost_exceeds_burst", true);
        assertThat(t.error()).isInstanceOf(CostExceedsBurstException.class);
    }

    @Test
    void otherClientErrorsAreTerminalButAcceptedByTheThrottle() {
        Classification.Terminal t = (Classification.Terminal) classify(Snapshots.status(404, Outcome.CLIENT_ERROR), null, true);
        assertThat(t.error()).isInstanceOf(ClientErrorException.class);
        assertThat(t.error().status()).isEqualTo(404);
        assertThat(t.accepted()).isTrue();
    }

    @Test
    void a408IsRetriedBecauseTheServerDidNotActOnIt() {
        assertThat(classify(Snapshots.status(408, Outcome.CLIENT_ERROR), null, false)).isInstanceOf(Classification.Retryable.class);
    }

    @Test
    void aServerErrorIsRetriedOnlyWhenTheCallIsSafeToRepeat() {
        assertThat(classify(Snapshots.status(502, Outcome.SERVER_ERROR), null, true)).isInstanceOf(Classification.Retryable.class);
        Classification.Terminal t = (Classification.Terminal) classify(Snapshots.status(502, Outcome.SERVER_ERROR), null, false);
        assertThat(t.error()).isInstanceOf(ServerErrorException.class);
    }

    @Test
    void aTimeoutAfterSendingIsRetriedOnlyWhenSafeR07a() {
        Answer.Failure timeout = new Answer.Failure(Answer.FailureKind.TIMEOUT, new IOException("timed out"));
        assertThat(classifier.classify(timeout, true, 1, NOW)).isInstanceOf(Classification.Retryable.class);
        Classification.Terminal t = (Classification.Terminal) classifier.classify(timeout, false, 1, NOW);
        assertThat(((TransportException) t.error()).outcomeUnknown()).isTrue();
        assertThat(t.accepted()).isFalse();
    }

    @Test
    void aConnectFailureIsAlwaysRetryableBecauseNothingWasSent() {
        Answer.Failure refused = new Answer.Failure(Answer.FailureKind.NOT_SENT, new java.net.ConnectException("refused"));
        Classification.Retryable r = (Classification.Retryable) classifier.classify(refused, false, 1, NOW);
        assertThat(((TransportException) r.giveUp().apply("x")).outcomeUnknown()).isFalse();
    }
}
