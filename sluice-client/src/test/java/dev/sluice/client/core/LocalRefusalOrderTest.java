package dev.sluice.client.core;

import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.Snapshots;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The local checks a new call meets, in order: what the client knows for certain answers first
 * (a spent quota: QuotaExceeded; a pause longer than the maximum wait: RateLimited), and only then
 * may the adaptive throttle drop the call at random (SPEC §4.2, §4.5, R08).
 */
class LocalRefusalOrderTest {

    private static CallSpec post() {
        return CallSpec.of("POST", "api.test");
    }

    /** Six sequential calls with a default client (throttle on); returns how each ended. */
    private static List<SluiceException> sixCalls(CoreHarness h) {
        java.util.ArrayList<SluiceException> errors = new java.util.ArrayList<>();
        for (int i = 0; i < 6; i++) {
            long id = h.open(post());
            h.run(Duration.ofSeconds(1));
            errors.add(h.result(id).error());
        }
        return errors;
    }

    @Test
    void aSpentDailyQuotaAnswersQuotaExceededToEveryLaterCallWithoutARequestR08() {
        // the edge's quota answer: 429 quota_exhausted naming "daily", whose RateLimit shows r=0
        Instant reset = Instant.parse("2026-12-01T00:00:00Z");
        for (int seed = 0; seed < 10; seed++) {
            CoreHarness h = new CoreHarness(ClientConfig.defaults(), ClientListener.none(), seed)
                    .server(s -> response(Snapshots.quotaExhausted("daily", Duration.ofSeconds(21_600), reset)));
            List<SluiceException> errors = sixCalls(h);
            assertThat(errors).as("seed " + seed).allMatch(e -> e instanceof QuotaExceededException);
            assertThat(errors.subList(1, 6)).as("seed " + seed + ": answered locally").allMatch(e -> e.attempts() == 0);
            assertThat(h.sent).as("one request in all").hasSize(1);
            assertThat(h.core.stats().localDrops()).isZero();
            assertThat(h.core.stats().quotaErrors()).isEqualTo(6);
        }
    }

    @Test
    void aQuotaAnswerWithOnlyARetryAfterAlsoAnswersLaterCallsLocallyR08() {
        // a quota answer with no RateLimit fields (a problem body and Retry-After = seconds to the
        // reset): the client learns the reset from the answer itself
        RateLimitSnapshot quota = new RateLimitSnapshot(429, Outcome.QUOTA_EXHAUSTED, "rfc9457", Duration.ofHours(6),
                false, List.of(), "daily", null, Map.of());
        for (int seed = 0; seed < 10; seed++) {
            CoreHarness h = new CoreHarness(ClientConfig.defaults(), ClientListener.none(), seed)
                    .server(s -> response(quota));
            List<SluiceException> errors = sixCalls(h);
            assertThat(errors).as("seed " + seed).allMatch(e -> e instanceof QuotaExceededException);
            assertThat(h.sent).hasSize(1);
            QuotaExceededException later = (QuotaExceededException) errors.get(5);
            assertThat(later.policy()).contains("daily");
            assertThat(later.resetAt()).contains(Instant.parse("2026-11-30T18:00:00.010Z").plus(Duration.ofHours(6)));
        }
    }

    @Test
    void aPauseLongerThanTheMaximumWaitAnswersRateLimitedBeforeTheThrottleCanDrop() {
        // 429 with Retry-After 3600 s (> the 60 s maximum wait): the first call fails carrying the
        // hint; the pacer stays paused, so later calls get the same typed answer without a request
        for (int seed = 0; seed < 10; seed++) {
            CoreHarness h = new CoreHarness(ClientConfig.defaults(), ClientListener.none(), seed)
                    .server(s -> response(Snapshots.rateLimited(Duration.ofSeconds(3600))));
            List<SluiceException> errors = sixCalls(h);
            assertThat(errors).as("seed " + seed).allMatch(e -> e instanceof RateLimitedException);
            assertThat(h.sent).hasSize(1);
            RateLimitedException later = (RateLimitedException) errors.get(5);
            assertThat(later.attempts()).isZero();
            assertThat(later.retryAfter().orElseThrow()).isBetween(Duration.ofSeconds(3594), Duration.ofSeconds(3600));
        }
    }

    @Test
    void aPauseThatEndsAfterTheDeadlineEndsANewCallAtOnceWithDeadlineExceeded() {
        // the first call's 429 (Retry-After 5 s) pauses the pacer and leaves the throttle at p = 0.5;
        // a new call with a 2 s deadline gets the certain answer, not the coin toss
        for (int seed = 0; seed < 10; seed++) {
            CoreHarness h = new CoreHarness(ClientConfig.defaults(), ClientListener.none(), seed)
                    .server(s -> response(Snapshots.rateLimited(Duration.ofSeconds(5))));
            h.open(post());
            h.run(Duration.ofMillis(100));
            long id = h.open(post().withDeadline(Duration.ofSeconds(2)));
            SluiceException e = h.result(id).error();
            assertThat(e).as("seed " + seed).isInstanceOf(dev.sluice.client.DeadlineExceededException.class);
            assertThat(((dev.sluice.client.ShedException) e).reason()).isEqualTo(dev.sluice.client.ShedReason.DEADLINE_AT_SUBMIT);
            assertThat(e.attempts()).isZero();
        }
    }

    @Test
    void aPauseWithinTheMaximumWaitIsWaitedThenTheCallIsSent() {
        // pause 5 s (< 60 s): a new call without a deadline waits for it; with the throttle off the
        // only question is the pause
        CoreHarness h = new CoreHarness(ClientConfig.defaults().withThrottle(dev.sluice.client.ThrottleConfig.disabled()))
                .latency(Duration.ZERO);
        java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
        h.server(s -> response(n.getAndIncrement() == 0 ? Snapshots.rateLimited(Duration.ofSeconds(5)) : Snapshots.ok()));
        long first = h.open(post());
        h.run(Duration.ofMillis(1));
        long second = h.open(post());
        h.run(Duration.ofMinutes(1));
        assertThat(h.result(second).ok()).isTrue();
        assertThat(h.sentFor(second).get(0).atNanos()).isGreaterThanOrEqualTo(5_000_000_000L);
        assertThat(h.result(first).ok()).isTrue();
    }
}
