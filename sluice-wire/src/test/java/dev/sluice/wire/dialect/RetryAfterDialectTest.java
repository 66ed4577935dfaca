package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryAfterDialectTest {

    @Test
    void aBareRetryAfterIsTheOnlyHint() {
        RateLimitSnapshot s = read(503, null, "Retry-After", "120");
        assertThat(s.dialect()).isEqualTo("retry-after");
        assertThat(s.outcome()).isEqualTo(Outcome.OVERLOADED);
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(120));
    }

    /** R01: Retry-After-Ms -1 is malformed; the valid Retry-After next to it is used instead. */
    @Test
    void r01AnInvalidRetryAfterMsFallsBackToRetryAfter() {
        assertThat(read(429, null, "Retry-After-Ms", "-1").retryAfter()).isNull();
        assertThat(read(429, null, "Retry-After-Ms", "-1", "Retry-After", "3").retryAfter()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void r01NegativeOrPastHintsNeverYieldNegativeWaits() {
        assertThat(read(429, null, "Retry-After", "-1").retryAfter()).isNull();
        assertThat(read(503, null, "Date", "Wed, 21 Oct 2015 07:28:30 GMT", "Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT")
                .retryAfter()).isZero();
    }
}
