package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.RetryBudgetConfig;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.Snapshots;
import dev.sluice.client.ThrottleConfig;
import dev.sluice.client.internal.core.DefaultClientCore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A 503 retry the retry budget has no room for (SPEC §4.2): a call with a deadline waits for room
 * until its deadline, the newest waiting retry first; a call without one fails when its answer
 * arrives. The budget here is SPEC §4.2's literal rule (10 % of requests over a minute, no floor, no
 * 5 s window), so that the room is exactly what the calls made.
 */
class RetryBudgetWaitTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long LATENCY = 10_000_000L;
    private static final ClientConfig STRICT = ClientConfig.defaults().withThrottle(ThrottleConfig.disabled())
            .withBudget(RetryBudgetConfig.strict());
    private static final Duration DEADLINE = Duration.ofSeconds(20);

    private static CallSpec get(Duration deadline) {
        return CallSpec.of("GET", "api.test").withDeadline(deadline);
    }

    @Test
    void aRetryWithoutRoomWaitsForTheRoomLaterCallsMakeAndIsSentThen() {
        // 10 calls at 0 s meet a 503 (Retry-After 1 s): 10 requests give room for 1 retry (retries < 10 %
        // of requests); 10 more calls at 5 s and 10 at 8 s give room for one more each
        CoreHarness h = new CoreHarness(STRICT).server(s -> s.atNanos() < SECOND
                ? response(Snapshots.overloaded(503, Duration.ofSeconds(1))) : response(Snapshots.ok()));
        long[] first = new long[10];
        for (int i = 0; i < first.length; i++) {
            first[i] = h.open(get(DEADLINE));
        }
        for (int i = 0; i < 10; i++) {
            h.openAt(Duration.ofSeconds(5), get(DEADLINE));
            h.openAt(Duration.ofSeconds(8), get(DEADLINE));
        }
        h.run(Duration.ofMinutes(1));

        int succeeded = 0;
        for (long id : first) {
            CoreHarness.Result r = h.result(id);
            if (r.ok()) {
                succeeded++;
                assertThat(r.attempts()).isEqualTo(2);
                continue;
            }
            // no room before the deadline: the 503's own error, the budget's refusal as its cause, at the deadline
            assertThat(r.error()).isInstanceOfSatisfying(OverloadedException.class, o -> {
                assertThat(o.attempts()).isEqualTo(1);
                assertThat(o.retryAfter()).contains(Duration.ofSeconds(1));
                assertThat(o.getCause()).isInstanceOfSatisfying(RetryBudgetExhaustedException.class,
                        b -> assertThat(b.scope()).isEqualTo(RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET));
            });
            assertThat(r.atNanos()).isBetween(DEADLINE.toNanos() - 2 * BudgetRecheck.NANOS, DEADLINE.toNanos());
        }
        assertThat(succeeded).as("one retry per 10 requests: at 1-2 s, after 5 s, after 8 s").isEqualTo(3);
        assertThat(h.sent).hasSize(30 + 3);
        assertThat(h.core.stats().retries()).as("retries granted").isEqualTo(3);
        assertThat(h.core.stats().budgetExhaustions()).isEqualTo(7);
        // the two late grants came only when the new calls made room, within one recheck of them
        assertThat(h.sent.stream().filter(s -> s.attempt() == 2).map(CoreHarness.Sent::atNanos).sorted().toList())
                .satisfies(at -> {
                    assertThat(at.get(0)).isBetween(SECOND + LATENCY, 2 * SECOND + LATENCY);
                    assertThat(at.get(1)).isBetween(5 * SECOND, 5 * SECOND + BudgetRecheck.NANOS);
                    assertThat(at.get(2)).isBetween(8 * SECOND, 8 * SECOND + BudgetRecheck.NANOS);
                });
    }

    @Test
    void whenRoomComesTheNewestWaitingRetryGoesFirst() {
        // A's first retry takes the one room its own request made and meets another 503; B fails at
        // 3 s; both wait (2 requests, 1 retry: no room); 10 calls at 6 s make room for one more: B's,
        // the retry with the most time left (adaptive LIFO); A's deadline passes while it waits
        CoreHarness h = new CoreHarness(STRICT).server(s -> s.atNanos() < 4 * SECOND
                ? response(Snapshots.overloaded(503, Duration.ofSeconds(1))) : response(Snapshots.ok()));
        long a = h.open(get(Duration.ofSeconds(10)));
        h.openAt(Duration.ofSeconds(3), get(Duration.ofSeconds(10)));
        for (int i = 0; i < 10; i++) {
            h.openAt(Duration.ofSeconds(6), get(Duration.ofSeconds(10)));
        }
        h.run(Duration.ofMinutes(1));
        long b = a + 1;
        assertThat(h.sentFor(b).get(0).atNanos()).isEqualTo(3 * SECOND);
        assertThat(h.result(b).ok()).isTrue();
        assertThat(h.sentFor(b)).hasSize(2);
        assertThat(h.sentFor(b).get(1).atNanos()).isBetween(6 * SECOND, 6 * SECOND + BudgetRecheck.NANOS);
        assertThat(h.sentFor(a)).hasSize(2);
        assertThat(h.result(a).error()).isInstanceOf(OverloadedException.class)
                .hasCauseInstanceOf(RetryBudgetExhaustedException.class);
        assertThat(h.result(a).atNanos()).isBetween(10 * SECOND - 2 * BudgetRecheck.NANOS, 10 * SECOND);
    }

    @Test
    void withoutADeadlineARetryWithoutRoomFailsWhenTheAnswerArrives() {
        // one request gives room for one retry (0 < 10 % of 1); the second 503 finds none
        CoreHarness h = new CoreHarness(STRICT).server(s -> response(Snapshots.overloaded(503, Duration.ofSeconds(1))));
        long id = h.open(CallSpec.of("GET", "api.test"));
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(2);
        assertThat(h.result(id).error()).isInstanceOf(OverloadedException.class)
                .hasCauseInstanceOf(RetryBudgetExhaustedException.class);
        assertThat(h.result(id).atNanos()).as("refused when the second 503 came")
                .isEqualTo(h.sentFor(id).get(1).atNanos() + LATENCY);
        assertThat(h.core.stats().retries()).isEqualTo(1);
    }

    /** How often a waiting retry asks the budget again. */
    private static final class BudgetRecheck {
        static final long NANOS = DefaultClientCore.BUDGET_RECHECK_NANOS;
    }
}
