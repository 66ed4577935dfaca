package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.Snapshots;
import dev.sluice.client.internal.core.DefaultClientCore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The adaptive throttle decides about new calls; retries are governed by the retry budget, the
 * attempt cap and the deadline (SPEC §4.2, §4.5), and a retry those refuse is refused when the
 * answer arrives, never after its wait.
 */
class RetriesAndTheThrottleTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long LATENCY = 10_000_000L;

    private static CallSpec post() {
        return CallSpec.of("POST", "api.test");
    }

    private static Function<CoreHarness.Sent, Answer> script(Answer... answers) {
        AtomicInteger i = new AtomicInteger();
        return s -> {
            int n = i.getAndIncrement();
            return n < answers.length ? answers[n] : response(Snapshots.ok());
        };
    }

    @Test
    void fortyFreshDefaultClientsAllRetryA429AfterItsRetryAfterAndSucceed() {
        // the reviewer's run: 40 fresh default clients, 429 Retry-After: 1 then 200. The 429 leaves
        // the throttle window at 1 request / 0 accepts (p = 0.5), which must not touch the retry.
        List<String> failures = new ArrayList<>();
        for (int seed = 0; seed < 40; seed++) {
            CoreHarness h = new CoreHarness(ClientConfig.defaults(), ClientListener.none(), seed)
                    .server(script(response(Snapshots.rateLimited(Duration.ofSeconds(1)))));
            long id = h.open(post());
            h.run(Duration.ofMinutes(1));
            if (!h.result(id).ok()) {
                failures.add("seed " + seed + ": " + h.result(id).error());
                continue;
            }
            List<CoreHarness.Sent> sent = h.sentFor(id);
            assertThat(sent).hasSize(2);
            assertThat(sent.get(1).atNanos() - sent.get(0).atNanos()).as("the Retry-After was honoured")
                    .isGreaterThanOrEqualTo(SECOND + LATENCY);
        }
        assertThat(failures).as("calls that failed out of 40").isEmpty();
    }

    @Test
    void theThrottleDropsOnlyNewCallsNeverARetryOfAnAdmittedCall() {
        // every call is refused twice (503, Retry-After 1 s) and then succeeds: 3 requests and 1
        // accept per call push p towards 1/3 and new calls are dropped; yet every call that was
        // admitted makes both of its retries (the budget is set wide so that only the throttle acts).
        // 503s: a 429 the pacer honours is not the throttle's to count (SPEC §4.5)
        CoreHarness h = new CoreHarness(ClientConfig.defaults().withBudget(new RetryBudgetConfig(10.0, Duration.ofMinutes(1), 10)),
                ClientListener.none(), 7).latency(Duration.ZERO)
                .server(s -> response(s.attempt() < 3 ? Snapshots.overloaded(503, Duration.ofSeconds(1)) : Snapshots.ok()));
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ids.add(h.open(post()));
            h.run(Duration.ofSeconds(5));
        }
        long dropped = 0;
        for (long id : ids) {
            CoreHarness.Result r = h.result(id);
            if (r.error() instanceof LocallyThrottledException e) {
                assertThat(e.attempts()).as("dropped before its first attempt").isZero();
                dropped++;
            } else {
                assertThat(r.ok()).as("call " + id + ": " + r.error()).isTrue();
                assertThat(h.sentFor(id)).hasSize(3);
            }
        }
        assertThat(dropped).as("the throttle still drops new calls").isPositive();
        assertThat(h.core.stats().localDrops()).isEqualTo(dropped);
    }

    @Test
    void everyAttemptIsRecordedInTheThrottleWindowWhenItCompletesR12() {
        // R12: 503, 503, 200 for one call = 3 requests, 1 accept; p = (3 − 2·1) / (3 + 1) = 0.25 (the
        // bare formula: with the default valves 3 requests in 2 minutes are too few to drop anything)
        CoreHarness h = new CoreHarness(ClientConfig.defaults().withThrottle(
                dev.sluice.client.ThrottleConfig.defaults().withoutSafetyValves()), ClientListener.none(), 3).server(script(
                response(Snapshots.overloaded(503, Duration.ofSeconds(1))),
                response(Snapshots.overloaded(503, Duration.ofSeconds(1)))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.result(id).ok()).isTrue();
        DefaultClientCore.ThrottleWindow w = ((DefaultClientCore<String>) h.core).throttleWindow();
        assertThat(w.requests()).isEqualTo(3);
        assertThat(w.accepts()).isEqualTo(1);
        assertThat(w.dropProbability()).isEqualTo(0.25);
    }

    @Test
    void a429ThePacerHonoursIsNotCountedByTheThrottle() {
        // SPEC §4.5 leaves it to the SDK: the 429 is the pacer's signal (it empties and pauses the
        // bucket for the Retry-After); the throttle counts only the 200 that follows
        CoreHarness h = new CoreHarness(ClientConfig.defaults(), ClientListener.none(), 3).server(script(
                response(Snapshots.rateLimited(Duration.ofSeconds(1)))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.result(id).ok()).isTrue();
        assertThat(h.sentFor(id)).hasSize(2);
        DefaultClientCore.ThrottleWindow w = ((DefaultClientCore<String>) h.core).throttleWindow();
        assertThat(w.requests()).isEqualTo(1);
        assertThat(w.accepts()).isEqualTo(1);
    }

    @Test
    void aRetryTheBudgetRefusesFailsWhenTheAnswerArrivesNotAfterTheWait() {
        ClientConfig config = ClientConfig.defaults().withBudget(new RetryBudgetConfig(0.0, Duration.ofMinutes(1), 0));
        CoreHarness h = new CoreHarness(config).server(script(response(Snapshots.rateLimited(Duration.ofSeconds(5)))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        assertThat(h.result(id).error()).isInstanceOf(dev.sluice.client.RateLimitedException.class)
                .hasCauseInstanceOf(RetryBudgetExhaustedException.class);
        assertThat(h.result(id).atNanos()).as("refused when the 429 came").isEqualTo(LATENCY);
    }

    @Test
    void aRetryOverTheAttemptCapFailsWhenTheLastAnswerArrives() {
        CoreHarness h = new CoreHarness(ClientConfig.defaults().withThrottle(dev.sluice.client.ThrottleConfig.disabled()))
                .latency(Duration.ZERO).server(s -> response(Snapshots.rateLimited(Duration.ofSeconds(2))));
        long id = h.open(post());
        h.run(Duration.ofMinutes(1));
        List<CoreHarness.Sent> sent = h.sentFor(id);
        assertThat(sent).hasSize(3);
        assertThat(h.result(id).atNanos()).as("no wait after the third answer").isEqualTo(sent.get(2).atNanos());
    }
}
