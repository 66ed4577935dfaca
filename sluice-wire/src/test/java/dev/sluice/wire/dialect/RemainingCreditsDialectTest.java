package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.junit.jupiter.api.Test;

class RemainingCreditsDialectTest {

    @Test
    void zeroCreditsOnARefusalIsQuotaExhausted() {
        RateLimitSnapshot s = read(429, null, "x-api-remaining-credits", "0");
        assertThat(s.dialect()).isEqualTo("credits");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(s.violatedPolicy()).isEqualTo("credits");
        assertThat(read(402, null, "x-api-remaining-credits", "0").outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
    }

    @Test
    void creditsLeftOrASuccessIsNotExhaustion() {
        assertThat(read(200, null, "x-api-remaining-credits", "0").outcome()).isEqualTo(Outcome.OK);
        assertThat(read(429, null, "x-api-remaining-credits", "12").outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(read(404, null, "x-api-remaining-credits", "0").outcome()).isEqualTo(Outcome.CLIENT_ERROR);
    }
}
