package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.Snapshots;
import dev.sluice.client.ThrottleConfig;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A retry waits at least the server's hint and starts before the call's deadline: when the hint
 * fits but hint + jitter would not, the jitter is drawn within what is left (R03, SPEC §2.4, §4.3).
 */
class DeadlineTrimTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long LATENCY = 10_000_000L;
    private static final ClientConfig NO_THROTTLE = ClientConfig.defaults().withThrottle(ThrottleConfig.disabled());

    private static Function<CoreHarness.Sent, Answer> once(Answer first) {
        AtomicInteger i = new AtomicInteger();
        return s -> i.getAndIncrement() == 0 ? first : response(Snapshots.ok());
    }

    @Test
    void aHintThatFitsTheDeadlineIsWaitedAndItsJitterTrimmedToFitR03() {
        // deadline 4 s, Retry-After 3 s: 3 s + U(0, 3 s) often passes 4 s; the retry must still be
        // made, no earlier than the hint and before the deadline
        for (int seed = 0; seed < 50; seed++) {
            CoreHarness h = new CoreHarness(NO_THROTTLE, ClientListener.none(), seed)
                    .server(once(response(Snapshots.rateLimited(Duration.ofSeconds(3)))));
            long id = h.open(CallSpec.of("POST", "api.test").withDeadline(Duration.ofSeconds(4)));
            h.run(Duration.ofMinutes(1));
            List<CoreHarness.Sent> sent = h.sentFor(id);
            assertThat(sent).as("seed " + seed + ": " + h.result(id).error()).hasSize(2);
            assertThat(sent.get(1).atNanos()).as("seed " + seed)
                    .isGreaterThanOrEqualTo(LATENCY + 3 * SECOND)
                    .isLessThan(4 * SECOND);
            assertThat(h.result(id).ok()).isTrue();
        }
    }

    @Test
    void aHintThatDoesNotFitTheDeadlineFailsAtOnceCarryingTheHintR03() {
        CoreHarness h = new CoreHarness(NO_THROTTLE).server(once(response(Snapshots.rateLimited(Duration.ofSeconds(4)))));
        long id = h.open(CallSpec.of("POST", "api.test").withDeadline(Duration.ofSeconds(4)));
        h.run(Duration.ofMinutes(1));
        assertThat(h.sentFor(id)).hasSize(1);
        RateLimitedException e = (RateLimitedException) h.result(id).error();
        assertThat(e.retryAfter()).contains(Duration.ofSeconds(4));
        assertThat(h.result(id).atNanos()).isEqualTo(LATENCY);
    }

    @Test
    void fullJitterWithoutAHintIsDrawnWithinWhatIsLeftOfTheDeadline() {
        // two 503s without Retry-After: full jitter U(0, 1 s), then U(0, 2 s) (SPEC §4.3); with a
        // 0.5 s deadline each wait is drawn within what is left instead of failing when it is longer
        for (int seed = 0; seed < 50; seed++) {
            AtomicInteger n = new AtomicInteger();
            CoreHarness h = new CoreHarness(NO_THROTTLE, ClientListener.none(), seed).latency(Duration.ZERO)
                    .server(s -> n.getAndIncrement() < 2 ? response(Snapshots.overloaded(503, null)) : response(Snapshots.ok()));
            long id = h.open(CallSpec.of("GET", "api.test").withDeadline(Duration.ofMillis(500)));
            h.run(Duration.ofMinutes(1));
            List<CoreHarness.Sent> sent = h.sentFor(id);
            assertThat(sent).as("seed " + seed + ": " + h.result(id).error()).hasSize(3);
            assertThat(sent.get(2).atNanos()).isLessThan(SECOND / 2);
            assertThat(h.result(id).error()).as("seed " + seed).isNull();
        }
    }

    @Test
    void anOverloadHintIsTrimmedTheSameWay() {
        CoreHarness h = new CoreHarness(NO_THROTTLE, ClientListener.none(), 11)
                .server(once(response(Snapshots.overloaded(503, Duration.ofSeconds(2)))));
        long id = h.open(CallSpec.of("GET", "api.test").withDeadline(Duration.ofMillis(2100)));
        h.run(Duration.ofMinutes(1));
        List<CoreHarness.Sent> sent = h.sentFor(id);
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1).atNanos()).isBetween(LATENCY + 2 * SECOND, 2100_000_000L - 1);
        assertThat(h.result(id).error()).isNull();
    }

    @Test
    void aRetryThePacerCannotStartBeforeTheDeadlineFailsWhenTheAnswerArrives() {
        // paced at 1/s, burst 1: the 429 empties and pauses the bucket for its 2 s, then one token
        // takes 1 s more. Deadline 2.5 s: the hint itself fits, the pacer's next token (≈ 3 s) does not.
        ClientConfig config = NO_THROTTLE.withPacer(PacerConfig.documented(1, 1).withPaceFraction(1.0));
        for (int seed = 0; seed < 20; seed++) {
            CoreHarness h = new CoreHarness(config, ClientListener.none(), seed)
                    .server(once(response(Snapshots.rateLimited(Duration.ofSeconds(2)))));
            long id = h.open(CallSpec.of("POST", "api.test").withDeadline(Duration.ofMillis(2500)));
            h.run(Duration.ofMinutes(1));
            assertThat(h.sentFor(id)).hasSize(1);
            SluiceException e = h.result(id).error();
            assertThat(e).as("seed " + seed).isInstanceOf(RateLimitedException.class);
            assertThat(e).hasMessageContaining("deadline");
            assertThat(h.result(id).atNanos()).as("seed " + seed + ": refused when the 429 came").isEqualTo(LATENCY);
        }
    }
}
