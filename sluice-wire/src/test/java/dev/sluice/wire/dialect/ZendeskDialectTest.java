package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ZendeskDialectTest {

    @Test
    void accountLimitFirstThenOnePolicyPerEndpoint() {
        RateLimitSnapshot s = read(200, null, "ratelimit-limit", "700", "ratelimit-remaining", "699",
                "ratelimit-reset", "41", "zendesk-ratelimit-tickets-index", "total=100; remaining=99; resets=41");
        assertThat(s.dialect()).isEqualTo("zendesk");
        assertThat(s.policies()).extracting(PolicySnapshot::name).containsExactly(null, "tickets-index");
        PolicySnapshot endpoint = s.policy("tickets-index").orElseThrow();
        assertThat(endpoint.quota()).isEqualTo(100L);
        assertThat(endpoint.remaining()).isEqualTo(99L);
        assertThat(endpoint.resetIn()).isEqualTo(Duration.ofSeconds(41));
    }

    @Test
    void unknownKeysAndGarbageInTheEndpointFieldAreSkipped() {
        PolicySnapshot p = read(200, null, "zendesk-ratelimit-x", "total=ten; color=blue; remaining=3; junk")
                .policy("x").orElseThrow();
        assertThat(p.quota()).isNull();
        assertThat(p.remaining()).isEqualTo(3L);
    }
}
