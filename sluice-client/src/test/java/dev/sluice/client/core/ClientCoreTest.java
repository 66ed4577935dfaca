package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.client.AdmissionConfig;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.CostExceedsBurstException;
import dev.sluice.client.DeadlineExceededException;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedException;
import dev.sluice.client.ShedReason;
import dev.sluice.client.Snapshots;
import dev.sluice.client.ThrottleConfig;
import dev.sluice.client.TransportException;
import dev.sluice.wire.snapshot.Outcome;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ClientCoreTest {

    private static final long SECOND = 1_000_000_000L;
    private static final ClientConfig NO_THROTTLE = ClientConfig.defaults().withThrottle(ThrottleConfig.disabled());

    private static CallSpec post() {
        return CallSpec.of("POST", "api.test");
    }

    private static CallSpec get() {
        return CallSpec.of("GET", "api.test");
    }

    /** A server that answers each attempt in turn from a script, then 200. */
    private static java.util.function.Function<CoreHarness.Sent, Answer> script(Answer... answers) {
        AtomicInteger i = new AtomicInteger();
        return s -> {
            int n = i.getAndIncrement();
            return n < answers.length ? answers[n] : response(Snapshots.ok());
        };
    }

    @Test
    void everyAttemptCarriesTheSameIdempotencyKeyR07b() {
        // R07b: capture [429, 503, 200] => Idempotency-Key [K1, K1, K1]
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(
                response(Snapshots.rateLimited(Duration.ofSeconds(1))),
                response(Snapshots.overloaded(503, null))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(5));
        assertThat(h.sentFor(id)).extracting(CoreHarness.Sent::idempotencyKey).containsExactly("K1", "K1", "K1");
        assertThat(h.result(id).ok()).isTrue();
    }

    @Test
    void anIdempotentMethodWithoutACallerKeyGetsNoKey() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script());
        long id = h.open(get());
        h.run(Duration.ofSeconds(1));
        assertThat(h.sentFor(id)).extracting(CoreHarness.Sent::idempotencyKey).containsExactly((String) null);
    }

    @Test
    void theCallersKeyIsKeptAndNotReplaced() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(response(Snapshots.overloaded(503, null))));
        long id = h.open(post().withIdempotencyKey("order-17"));
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).extracting(CoreHarness.Sent::idempotencyKey).containsExactly("order-17", "order-17");
    }

    @Test
    void retryAfterIsHonouredAndJitteredOnlyUpward() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(response(Snapshots.rateLimited(Duration.ofSeconds(5)))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        List<CoreHarness.Sent> s = h.sentFor(id);
        assertThat(s).hasSize(2);
        long gap = s.get(1).atNanos() - s.get(0).atNanos();
        // answer after 10 ms latency, then ra + U(0, 5 s)
        assertThat(gap).isBetween(5 * SECOND + 10_000_000L, 10 * SECOND + 10_000_000L);
    }

    @Test
    void atMostThreeAttemptsThenTheTypedErrorOfTheLastAnswer() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(s -> response(Snapshots.rateLimited(Duration.ofSeconds(1))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(5));
        assertThat(h.sentFor(id)).hasSize(3);
        assertThat(h.result(id).error()).isInstanceOf(RateLimitedException.class);
        RateLimitedException e = (RateLimitedException) h.result(id).error();
        assertThat(e.status()).isEqualTo(429);
        assertThat(e.attempts()).isEqualTo(3);
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(1));
        assertThat(e.snapshot()).isPresent();
    }

    @Test
    void aHintAboveTheMaximumWaitFailsAtOnceCarryingTheHintR03() {
        // R03b: Retry-After 3600 with a 10 s maximum wait: one request, no sleep, the hint kept
        ClientConfig config = NO_THROTTLE.withRetry(NO_THROTTLE.retry().toBuilder().maxWait(Duration.ofSeconds(10)).build());
        CoreHarness h = new CoreHarness(config).server(script(response(Snapshots.rateLimited(Duration.ofSeconds(3600)))));
        long id = h.open(post());
        h.run(Duration.ofHours(2));
        assertThat(h.sentFor(id)).hasSize(1);
        assertThat(h.result(id).atNanos()).as("failed when the answer came, without waiting").isEqualTo(10_000_000L);
        RateLimitedException e = (RateLimitedException) h.result(id).error();
        assertThat(e.retryAfter()).contains(Duration.ofHours(1));
    }

    @Test
    void aHugeHintSaturatesAndFailsAtOnceR03() {
        // R03a/c: 9999999999 s and beyond-long values reach the core saturated, never overflow
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(
                response(Snapshots.overloaded(503, Duration.ofSeconds(Long.MAX_VALUE / 2)))));
        long id = h.open(get());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        assertThat(h.result(id).error()).isInstanceOf(OverloadedException.class);
    }

    @Test
    void noWaitEverExceedsTheMaximumWaitEvenWithJitter() {
        // ra = 55 s, J = 20 s: ra + U(0, 20) would pass 60 s; the jitter is trimmed, the hint kept
        CoreHarness h = new CoreHarness(NO_THROTTLE, ClientListener.none(), 1).latency(Duration.ZERO);
        for (int i = 0; i < 50; i++) {
            AtomicInteger n = new AtomicInteger();
            long id = h.open(get());
            h.server(s -> n.getAndIncrement() == 0 ? response(Snapshots.rateLimited(Duration.ofSeconds(55))) : response(Snapshots.ok()));
            h.run(Duration.ofMinutes(5));
            List<CoreHarness.Sent> s = h.sentFor(id);
            long gap = s.get(1).atNanos() - s.get(0).atNanos();
            assertThat(gap).isBetween(55 * SECOND, 60 * SECOND);
        }
    }

    @Test
    void aRetryThatWouldStartAfterTheDeadlineFailsNow() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(response(Snapshots.rateLimited(Duration.ofSeconds(5)))));
        long id = h.open(post().withDeadline(Duration.ofSeconds(4)));
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        assertThat(h.result(id).error()).isInstanceOf(RateLimitedException.class)
                .hasMessageContaining("after the call's deadline");
        assertThat(h.result(id).atNanos()).isEqualTo(10_000_000L);
    }

    @Test
    void oneDeadlineFixedAtAdmissionIsSharedByEveryRetryR20() {
        // R20: deadline now+5 s; the first answer comes at 2 s with Retry-After 3 s, so the retry
        // would start at >= 5 s: past the shared deadline (3 s left), though a fresh 5 s would fit
        CoreHarness h = new CoreHarness(NO_THROTTLE).latency(Duration.ofSeconds(2))
                .server(script(response(Snapshots.overloaded(503, Duration.ofSeconds(3)))));
        long id = h.open(get().withDeadline(Duration.ofSeconds(5)));
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        assertThat(h.result(id).error()).isInstanceOf(OverloadedException.class).hasMessageContaining("deadline");
        assertThat(h.result(id).atNanos()).as("failed at once, at 2 s").isEqualTo(2 * SECOND);
    }

    @Test
    void aRetryThatFitsTheSharedDeadlineIsMade() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).latency(Duration.ofSeconds(2))
                .server(script(response(Snapshots.overloaded(503, Duration.ofMillis(500)))));
        long id = h.open(get().withDeadline(Duration.ofSeconds(5)));
        h.run(Duration.ofMinutes(1));
        // answered at 2 s, waits 0.5 s + U(0, 1 s): starts before 3.5 s < 5 s
        assertThat(h.sentFor(id)).hasSize(2);
        assertThat(h.sentFor(id).get(1).atNanos()).isBetween(2500_000_000L, 3500_000_000L);
    }

    @Test
    void aCallWaitingForASlotPastItsDeadlineEndsWithDeadlineExceededAndIsNeverSentR20() {
        ClientConfig config = NO_THROTTLE.withAdmission(AdmissionConfig.of(100, 1).withQueueTimeout(Duration.ofSeconds(60)));
        CoreHarness h = new CoreHarness(config).latency(Duration.ofSeconds(30)).server(script());
        long busy = h.open(get());
        long late = h.open(get().withDeadline(Duration.ofSeconds(5)));
        h.run(Duration.ofMinutes(2));
        assertThat(h.sentFor(late)).isEmpty();
        assertThat(h.result(late).error()).isInstanceOf(DeadlineExceededException.class);
        assertThat(((ShedException) h.result(late).error()).reason()).isEqualTo(ShedReason.DEADLINE_AT_DEQUEUE);
        assertThat(h.result(late).atNanos()).isEqualTo(5 * SECOND);
        assertThat(h.result(busy).ok()).isTrue();
        assertThat(h.core.stats().shed()).containsEntry(ShedReason.DEADLINE_AT_DEQUEUE, 1L);
    }

    @Test
    void quotaExhaustedIsRaisedAfterExactlyOneRequestR08() {
        Instant reset = Instant.parse("2026-12-01T00:00:00Z");
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(
                response(Snapshots.quotaExhausted("daily", Duration.ofSeconds(21_600), reset))));
        long id = h.open(post());
        h.run(Duration.ofHours(7));
        assertThat(h.sent).hasSize(1);
        QuotaExceededException e = (QuotaExceededException) h.result(id).error();
        assertThat(e.policy()).contains("daily");
        assertThat(e.resetAt()).contains(reset);
        assertThat(e.attempts()).isEqualTo(1);
        assertThat(h.result(id).atNanos()).as("no sleep").isEqualTo(10_000_000L);
        assertThat(h.core.stats().quotaErrors()).isEqualTo(1);
    }

    @Test
    void aRateLimited429NamingASpentQuotaPolicyIsAQuotaErrorR08() {
        var s = new dev.sluice.wire.snapshot.RateLimitSnapshot(429, Outcome.RATE_LIMITED, "test", Duration.ofSeconds(19_200),
                false, List.of(Snapshots.burst("burst", 20, 2, 15, Duration.ofSeconds(1)),
                        Snapshots.quota("daily", 10_000, 86_400, 0, Duration.ofSeconds(19_200))), "daily", null, java.util.Map.of());
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(response(s)));
        long id = h.open(post());
        h.run(Duration.ofHours(6));
        assertThat(h.sent).hasSize(1);
        QuotaExceededException e = (QuotaExceededException) h.result(id).error();
        assertThat(e.resetAt()).contains(Instant.parse("2026-11-30T18:00:00.010Z").plusSeconds(19_200));
    }

    @Test
    void eightConsecutiveOverloadsNeverTouchQuotaOrPacingStateR09() {
        // R09: 503/529 without Retry-After: full-jitter backoff only, no QuotaExceeded, no cooldown
        // four calls' eight attempts within seconds: the budget's spread window (2 retries per 5 s at
        // this rate) is not what this test is about
        ClientConfig config = NO_THROTTLE.withBudget(RetryBudgetConfig.defaults().withSpreadWindow(Duration.ZERO))
                .withPacer(PacerConfig.documented(10, 10).withPaceFraction(1.0));
        CoreHarness h = new CoreHarness(config).server(s -> response(Snapshots.overloaded(s.attempt() % 2 == 0 ? 529 : 503, null)));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            ids.add(h.open(get()));
        }
        h.run(Duration.ofMinutes(5));
        assertThat(h.sent.size()).isGreaterThanOrEqualTo(8);
        for (long id : ids) {
            assertThat(h.result(id).error()).isInstanceOf(OverloadedException.class);
        }
        assertThat(h.core.stats().quotaErrors()).isZero();
        var pacer = ((dev.sluice.client.internal.core.DefaultClientCore<String>) h.core).pacer();
        assertThat(pacer.block(h.time.nanoTime())).isNull();
        // every gap between attempts of a call is within full jitter: U(0, min(20, 0.5·2^n)) + latency
        for (long id : ids) {
            List<CoreHarness.Sent> s = h.sentFor(id);
            for (int i = 1; i < s.size(); i++) {
                long gap = s.get(i).atNanos() - s.get(i - 1).atNanos();
                assertThat(gap).isLessThanOrEqualTo((long) (0.5 * (1 << i) * SECOND) + 10_000_000L + 100_000_000L);
            }
        }
    }

    @Test
    void theRetryBudgetCapsRetriesAtTenPercentOfRequests() {
        ClientConfig config = NO_THROTTLE.withBudget(RetryBudgetConfig.strict()).withAdmission(AdmissionConfig.of(200, 64));
        CoreHarness h = new CoreHarness(config).latency(Duration.ZERO)
                .server(s -> response(Snapshots.overloaded(503, null)));
        for (int i = 0; i < 200; i++) {
            h.open(get());
        }
        h.run(Duration.ofSeconds(50));
        long retries = h.core.stats().retries();
        assertThat(retries).isEqualTo(20); // 10 % of 200 (SPEC §4.2)
        assertThat(h.sent).hasSize(200 + (int) retries);
        // a refused retry of a 503 is the 503's own error, the budget's refusal its cause (SPEC §4.2)
        assertThat(h.results.values()).filteredOn(r -> r.error() instanceof OverloadedException o
                && o.getCause() instanceof RetryBudgetExhaustedException b
                && b.scope() == RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET).isNotEmpty();
        assertThat(h.results.values()).noneMatch(r -> r.error() instanceof RetryBudgetExhaustedException);
        assertThat(h.core.stats().budgetExhaustions()).isGreaterThanOrEqualTo(180);
    }

    @Test
    void aCallersRepeatedCallsWithOneKeyStopAtFiveAttemptsInTotal() {
        // the harness runs until idle, so the repeated calls come within seconds: the budget's spread
        // window would refuse the second call's retry before the key's cap, which is what is tested here
        CoreHarness h = new CoreHarness(NO_THROTTLE.withBudget(RetryBudgetConfig.defaults().withSpreadWindow(Duration.ZERO)))
                .server(s -> response(Snapshots.overloaded(503, null)));
        long first = h.open(post().withIdempotencyKey("K-caller"));
        h.run(Duration.ofMinutes(2));
        long second = h.open(post().withIdempotencyKey("K-caller"));
        h.run(Duration.ofMinutes(2));
        long third = h.open(post().withIdempotencyKey("K-caller"));
        h.run(Duration.ofMinutes(2));
        assertThat(h.sentFor(first)).hasSize(3);
        assertThat(h.sentFor(second)).hasSize(2); // 5 in total (SPEC §4.4)
        // the answer's error, the key's cap as its cause; the third call is refused at open (no answer)
        assertThat(h.result(second).error()).isInstanceOf(OverloadedException.class)
                .hasCauseInstanceOf(RetryBudgetExhaustedException.class);
        assertThat(((RetryBudgetExhaustedException) h.result(second).error().getCause()).scope())
                .isEqualTo(RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS);
        assertThat(((RetryBudgetExhaustedException) h.result(third).error()).scope())
                .isEqualTo(RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS);
        assertThat(h.sent).hasSize(5);
    }

    @Test
    void aCallUnderARetryingLayerMakesOneAttemptOnly() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(s -> response(Snapshots.overloaded(503, null)));
        long id = h.open(post().withRetries(false));
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        assertThat(h.result(id).error()).isInstanceOf(OverloadedException.class).hasMessageContaining("SPEC §4.7");
    }

    @Test
    void aReadTimeoutOnAPostWithoutAKeyIsNeverRetriedR07a() {
        ClientConfig config = NO_THROTTLE.withRetry(NO_THROTTLE.retry().toBuilder().mintIdempotencyKeys(false).build());
        CoreHarness h = new CoreHarness(config).server(s -> new Answer.Failure(Answer.FailureKind.TIMEOUT,
                new HttpTimeoutException("request timed out")));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        TransportException e = (TransportException) h.result(id).error();
        assertThat(e.outcomeUnknown()).isTrue();
        assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
    }

    @Test
    void aConnectFailureBeforeSendingIsRetriedEvenForAPostWithoutAKeyR07a() {
        ClientConfig config = NO_THROTTLE.withRetry(NO_THROTTLE.retry().toBuilder().mintIdempotencyKeys(false).build());
        CoreHarness h = new CoreHarness(config).server(script(new Answer.Failure(Answer.FailureKind.NOT_SENT,
                new ConnectException("Connection refused"))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(2);
        assertThat(h.result(id).ok()).isTrue();
    }

    @Test
    void aTimeoutIsRetriedWhenThePostCarriesAKey() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(script(new Answer.Failure(Answer.FailureKind.CONNECTION_LOST,
                new IOException("connection reset"))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).extracting(CoreHarness.Sent::idempotencyKey).containsExactly("K1", "K1");
    }

    @Test
    void aLocallyDroppedCallNeverReachesTheNetwork() {
        // the bare formula (valves off): with them, the first 120 calls of the window and one call in five
        // after that still go (SPEC §4.5 safety valves); here every answer is a rejection, p climbs towards 1
        CoreHarness h = new CoreHarness(ClientConfig.defaults().withBudget(new RetryBudgetConfig(0.1, Duration.ofMinutes(1), 0))
                .withThrottle(ThrottleConfig.defaults().withoutSafetyValves()))
                .latency(Duration.ZERO).server(s -> response(Snapshots.overloaded(503, null)));
        for (int i = 0; i < 300; i++) {
            h.open(get().withRetries(false));
            h.run(Duration.ofMillis(100));
        }
        long drops = h.core.stats().localDrops();
        assertThat(drops).isGreaterThan(200); // every answer is a rejection: p climbs towards 1
        assertThat(h.sent).hasSize((int) (300 - drops));
        assertThat(h.results.values()).filteredOn(r -> r.error() instanceof LocallyThrottledException).hasSize((int) drops);
    }

    @Test
    void aCostAboveThePacersBurstFailsAtOnceR14() {
        CoreHarness h = new CoreHarness(NO_THROTTLE.withPacer(PacerConfig.documented(10, 5))).server(script());
        long id = h.open(post().withCost(6));
        assertThat(h.result(id).error()).isInstanceOf(CostExceedsBurstException.class);
        assertThat(h.sent).isEmpty();
    }

    @Test
    void a429EmptiesThePacerAndPausesEveryCallForRetryAfter() {
        ClientConfig config = NO_THROTTLE.withPacer(PacerConfig.documented(100, 100));
        AtomicInteger n = new AtomicInteger();
        CoreHarness h = new CoreHarness(config).latency(Duration.ZERO)
                .server(s -> n.getAndIncrement() == 0 ? response(Snapshots.rateLimited(Duration.ofSeconds(3))) : response(Snapshots.ok()));
        long first = h.open(get());
        h.run(Duration.ofMillis(1));
        long second = h.open(get());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(second).get(0).atNanos()).as("paused for Retry-After").isGreaterThanOrEqualTo(3 * SECOND);
        assertThat(h.sentFor(first).get(1).atNanos()).isGreaterThanOrEqualTo(3 * SECOND);
    }

    @Test
    void aSpentDailyQuotaSeenOnA200FailsLaterCallsWithoutSendingThem() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).latency(Duration.ZERO).server(script(response(Snapshots.ok(
                Snapshots.quota("daily", 10_000, 86_400, 0, Duration.ofSeconds(19_200))))));
        long first = h.open(get());
        h.run(Duration.ofSeconds(1));
        long second = h.open(get());
        h.run(Duration.ofSeconds(1));
        assertThat(h.result(first).ok()).isTrue();
        assertThat(h.sentFor(second)).isEmpty();
        QuotaExceededException e = (QuotaExceededException) h.result(second).error();
        assertThat(e.policy()).contains("daily");
    }

    @Test
    void cancellingAWaitingRetryStopsIt() throws Exception {
        CoreHarness h = new CoreHarness(NO_THROTTLE);
        CoreCall<String> call = h.core.open(get(), "x");
        Dispatch<String> d = h.core.poll();
        assertThat(d.start()).hasSize(1);
        Decision decision = h.core.onAnswer(call, response(Snapshots.rateLimited(Duration.ofSeconds(5))));
        assertThat(decision).isInstanceOf(Decision.RetryAfter.class);
        h.core.cancel(call);
        h.time.advance(Duration.ofSeconds(30));
        assertThat(h.core.poll().start()).isEmpty();
        assertThat(h.core.poll().wakeAtNanos()).isEmpty();
    }

    @Test
    void answeringACallWithNoAttemptInFlightIsRejected() throws Exception {
        CoreHarness h = new CoreHarness(NO_THROTTLE);
        CoreCall<String> call = h.core.open(get(), "x");
        assertThatThrownBy(() -> h.core.onAnswer(call, response(Snapshots.ok()))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pacingReferenceScaledNCallsAtSixtyPerSecondBurstTenTakeNMinusTenOverSixtySecondsFromTheFirstAnswerWithNo429() {
        // SPEC §4.6 reference (2,400 calls -> ≈ 40 s), scaled: 130 calls -> (130 − 10) / 60 = 2 s,
        // and the full 2,400 -> 39.83 s; the in-test limiter is an exact GCRA of 60/s, burst 10.
        // The refill counts from the first answer (20 ms), not from the first send: until the
        // server has answered, the client cannot know its bucket has started refilling (cold start)
        for (int n : new int[] {130, 2400}) {
            ClientConfig config = NO_THROTTLE.withPacer(PacerConfig.documented(60, 10).withPaceFraction(1.0))
                    .withAdmission(AdmissionConfig.of(n, 8));
            ExactGcra limiter = new ExactGcra(60, 10);
            CoreHarness h = new CoreHarness(config).latency(Duration.ofMillis(20));
            List<Integer> statuses = new ArrayList<>();
            h.server(s -> {
                boolean ok = limiter.allow(s.atNanos());
                statuses.add(ok ? 200 : 429);
                return response(ok ? Snapshots.ok() : Snapshots.rateLimited(Duration.ofSeconds(1)));
            });
            for (int i = 0; i < n; i++) {
                h.open(get());
            }
            h.run(Duration.ofMinutes(5));
            assertThat(statuses).hasSize(n).doesNotContain(429);
            long lastStart = h.sent.get(h.sent.size() - 1).atNanos();
            double expected = 0.020 + (n - 10) / 60.0;
            assertThat(lastStart / 1e9).isCloseTo(expected, org.assertj.core.api.Assertions.within(0.001));
        }
    }

    @Test
    void atTheDefaultNinetyPercentPaceTheSameRunTakesLongerAndStillSeesNo429() {
        ClientConfig config = NO_THROTTLE.withPacer(PacerConfig.documented(60, 10)).withAdmission(AdmissionConfig.of(130, 8));
        ExactGcra limiter = new ExactGcra(60, 10);
        CoreHarness h = new CoreHarness(config).latency(Duration.ofMillis(20));
        List<Integer> statuses = new ArrayList<>();
        h.server(s -> {
            boolean ok = limiter.allow(s.atNanos());
            statuses.add(ok ? 200 : 429);
            return response(ok ? Snapshots.ok() : Snapshots.rateLimited(Duration.ofSeconds(1)));
        });
        for (int i = 0; i < 130; i++) {
            h.open(get());
        }
        h.run(Duration.ofMinutes(5));
        assertThat(statuses).hasSize(130).doesNotContain(429);
        // 90 % of 60/s with 90 % of the burst (SPEC §4.6): at most 10 calls by the first answer
        // (20 ms; 9 from the paced burst, 1 from its margin), then 54/s from it: 0.020 + (130 − 10) / 54
        assertThat(h.sent.get(129).atNanos() / 1e9).isCloseTo(0.020 + 120 / 54.0, org.assertj.core.api.Assertions.within(0.001));
    }

    @Test
    void withoutPacingTheSameBurstMeetsTheLimiter() {
        // the control for the two tests above: the limiter does say no when nothing paces
        ExactGcra limiter = new ExactGcra(60, 10);
        CoreHarness h = new CoreHarness(NO_THROTTLE.withAdmission(AdmissionConfig.of(130, 130)))
                .latency(Duration.ofMillis(20));
        List<Integer> statuses = new ArrayList<>();
        h.server(s -> {
            boolean ok = limiter.allow(s.atNanos());
            statuses.add(ok ? 200 : 429);
            return response(ok ? Snapshots.ok() : Snapshots.rateLimited(Duration.ofSeconds(1)));
        });
        for (int i = 0; i < 130; i++) {
            h.open(get().withRetries(false));
        }
        h.run(Duration.ofMinutes(1));
        // the probe goes alone (nothing is known of the limit); its answer says nothing either, so the
        // other 129 go at once 20 ms later and meet 10 tokens plus 1.2 refilled: 119 refused
        assertThat(statuses.stream().filter(s -> s == 429).count()).isEqualTo(119);
    }

    @Test
    void theListenerSeesRequestsAcceptsRetriesAndWaits() {
        List<String> events = new ArrayList<>();
        ClientListener l = new ClientListener() {
            @Override public void onAttempt(String host, int attempt) { events.add("attempt" + attempt); }
            @Override public void onAccepted(String host, int status) { events.add("accepted" + status); }
            @Override public void onRetryScheduled(String host, int next, Duration wait) { events.add("retry" + next); }
            @Override public void onQueueWait(String host, Duration waited) { events.add("wait"); }
        };
        CoreHarness h = new CoreHarness(NO_THROTTLE, l, 1).server(script(response(Snapshots.overloaded(503, null))));
        h.open(get());
        h.run(Duration.ofMinutes(1));
        assertThat(events).containsExactly("attempt1", "wait", "retry2", "attempt2", "wait", "accepted200");
    }

    @Test
    void aThrowingListenerDoesNotBreakCalls() {
        ClientListener l = new ClientListener() {
            @Override public void onAttempt(String host, int attempt) { throw new IllegalStateException("boom"); }
        };
        CoreHarness h = new CoreHarness(NO_THROTTLE, l, 1).server(script());
        long id = h.open(get());
        h.run(Duration.ofSeconds(1));
        assertThat(h.result(id).ok()).isTrue();
    }

    @Test
    void warnsOnceWhenTheTimeoutIsBelowTheHostsP99() {
        List<Duration> warnings = new ArrayList<>();
        ClientListener l = new ClientListener() {
            @Override public void onTimeoutBelowP99(String host, Duration timeout, Duration p99) { warnings.add(p99); }
        };
        CoreHarness h = new CoreHarness(NO_THROTTLE.withAdmission(AdmissionConfig.of(200, 64)), l, 1)
                .latency(Duration.ofSeconds(2)).server(script());
        for (int i = 0; i < 150; i++) {
            h.open(get().withAttemptTimeout(Duration.ofMillis(500)));
        }
        h.run(Duration.ofMinutes(10));
        assertThat(warnings).containsExactly(Duration.ofSeconds(2)); // seed 002: 500 ms timeout, 2 s p99
        var profile = ((dev.sluice.client.internal.core.DefaultClientCore<String>) h.core).hostProfile("api.test");
        assertThat(profile.p99()).isEqualTo(Duration.ofSeconds(2));
        assertThat(profile.samples()).isEqualTo(150);
    }

    @Test
    void wallClockStepsNeitherDrainNorRefillThePacerR15() {
        // R15a: capacity 10, 1/s, three calls; the wall clock steps −11 s then +11 s while no
        // monotonic time passes: 7 tokens stay, no Retry-After, no phantom refill
        ClientConfig config = NO_THROTTLE.withPacer(PacerConfig.documented(1, 10).withPaceFraction(1.0));
        CoreHarness h = new CoreHarness(config).latency(Duration.ZERO).server(script());
        for (int i = 0; i < 3; i++) {
            h.open(get());
        }
        h.run(Duration.ZERO);
        var pacer = ((dev.sluice.client.internal.core.DefaultClientCore<String>) h.core).pacer();
        assertThat(pacer.available(h.time.nanoTime())).isEqualTo(7.0);
        h.time.stepWallClock(Duration.ofSeconds(-11));
        long next = h.open(get());
        h.run(Duration.ZERO);
        assertThat(h.result(next).ok()).as("allowed at once").isTrue();
        assertThat(pacer.available(h.time.nanoTime())).isEqualTo(6.0);
        h.time.stepWallClock(Duration.ofSeconds(22));
        assertThat(pacer.available(h.time.nanoTime())).as("no refill from a wall-clock step").isEqualTo(6.0);
    }

    @Test
    void aGetTheJdkMayHaveSentTwiceCountsTwoAttemptsAndIsNotRetriedPastTheCap() {
        // SPEC §4.7: the JDK re-sent the GET once underneath (transportResends = 1): 2 requests on
        // the wire; a third SDK attempt could be doubled again (4 > 3), so the call ends here
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(s -> new Answer.Failure(Answer.FailureKind.CONNECTION_LOST,
                new IOException("Connection reset"), 1));
        long id = h.open(get());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        TransportException e = (TransportException) h.result(id).error();
        assertThat(e.attempts()).as("what reached the server").isEqualTo(2);
        assertThat(e).hasMessageContaining("sent twice");
        assertThat(h.core.stats().attempts()).isEqualTo(2);
        assertThat(h.core.stats().transportResends()).isEqualTo(1);
        assertThat(h.core.stats().retries()).isZero();
        var w = ((dev.sluice.client.internal.core.DefaultClientCore<String>) h.core).throttleWindow();
        assertThat(w.requests()).as("both sends recorded as refused requests (R12)").isEqualTo(2);
        assertThat(w.accepts()).isZero();
    }

    @Test
    void withFiveAttemptsAGetTheJdkMayDoubleIsRetriedWhileTwoMoreFit() {
        ClientConfig config = NO_THROTTLE.withRetry(NO_THROTTLE.retry().toBuilder().maxAttempts(5).build());
        CoreHarness h = new CoreHarness(config).server(s -> new Answer.Failure(Answer.FailureKind.CONNECTION_LOST,
                new IOException("Connection reset"), 1));
        long id = h.open(get());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).as("SDK attempts").hasSize(2);
        assertThat(h.result(id).error().attempts()).as("on the wire: 2 + 2 <= 5, a third would risk 6").isEqualTo(4);
    }

    /** GCRA in exact integer arithmetic (time scaled by the rate), as an in-test limiter. */
    static final class ExactGcra {
        private final long perSecond;
        private final long toleranceScaled;
        private long tatScaled = Long.MIN_VALUE;

        ExactGcra(long perSecond, long burst) {
            this.perSecond = perSecond;
            this.toleranceScaled = (burst - 1) * SECOND;
        }

        /** Time in units of 1/perSecond ns: one emission interval is exactly 1e9. */
        boolean allow(long nowNanos) {
            long now = nowNanos * perSecond;
            long tat = tatScaled == Long.MIN_VALUE ? now : Math.max(tatScaled, now);
            if (now < tat - toleranceScaled) {
                return false;
            }
            tatScaled = tat + SECOND;
            return true;
        }
    }
}
