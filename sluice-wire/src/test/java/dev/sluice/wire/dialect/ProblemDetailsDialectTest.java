package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.junit.jupiter.api.Test;

class ProblemDetailsDialectTest {

    @Test
    void aProblemBodyAloneIsRecognisedAndClassifiedByItsType() {
        RateLimitSnapshot s = read(403, "{\"type\":\"https://example.com/probs/out-of-credit\",\"title\":\"x\"}",
                "Content-Type", "application/problem+json");
        assertThat(s.dialect()).isEqualTo("rfc9457");
        assertThat(s.outcome()).isEqualTo(Outcome.QUOTA_EXHAUSTED);
        assertThat(s.attributes()).containsEntry("problem_type", "https://example.com/probs/out-of-credit");
    }

    @Test
    void anUnrelatedProblemIsAClientError() {
        RateLimitSnapshot s = read(404, "{\"type\":\"https://example.com/probs/not-found\",\"title\":\"x\"}",
                "Content-Type", "application/problem+json");
        assertThat(s.dialect()).isEqualTo("rfc9457");
        assertThat(s.outcome()).isEqualTo(Outcome.CLIENT_ERROR);
    }
}
