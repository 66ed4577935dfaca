package dev.sluice.client.core;

import static dev.sluice.client.Snapshots.burst;
import static dev.sluice.client.Snapshots.quota;
import static dev.sluice.client.core.CoreHarness.response;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.Snapshots;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The end of a quota (SPEC §4.6): the last 10 % spread over the reset, then a typed, named refusal. */
class QuotaEndTest {

    private static final Instant START = Instant.parse("2026-11-30T18:00:00Z");

    @Test
    void aQuotaSpreadTooThinForTheMaximumWaitIsAQuotaErrorNamingThePolicyNotAMultiHourRateLimit() {
        // the first call leaves 8 of 100 for an hour: the first of those goes at once, the next only
        // 3600 / 7 s later, past the 60 s maximum wait: QuotaExceededException("hourly", reset),
        // without a request (with tokens in the bucket, all 8 used to go at once)
        CoreHarness h = new CoreHarness(ClientConfig.defaults()).server(s -> response(Snapshots.ok(
                burst("burst", 20, 2, 19, Duration.ofSeconds(1)),
                quota("hourly", 100, 3600, 8 - s.callId(), Duration.ofSeconds(3600)))));
        long first = h.open(CallSpec.of("GET", "api"));
        h.run(Duration.ofSeconds(1));
        long second = h.open(CallSpec.of("GET", "api"));
        h.run(Duration.ofSeconds(1));
        long third = h.open(CallSpec.of("GET", "api"));
        h.run(Duration.ofSeconds(1));
        assertThat(h.result(first).ok()).isTrue();
        assertThat(h.result(second).ok()).as("the first of the remaining 8 goes at once").isTrue();
        assertThat(h.result(third).error()).isInstanceOfSatisfying(QuotaExceededException.class, q -> {
            assertThat(q.policy()).contains("hourly");
            assertThat(q.resetAt()).hasValueSatisfying(at ->
                    assertThat(Duration.between(START, at)).isBetween(Duration.ofSeconds(3599), Duration.ofSeconds(3602)));
            assertThat(q.attempts()).isZero();
        }).isNotInstanceOf(RateLimitedException.class);
        assertThat(h.sent).hasSize(2);
    }
}
