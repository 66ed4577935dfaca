package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static dev.sluice.wire.dialect.Responses.readWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class IetfDraft07DialectTest {

    @Test
    void r06Draft7SampleNormalisesToLimitRemainingResetAndWindow() {
        RateLimitSnapshot s = read(200, null, "RateLimit", "limit=100, remaining=50, reset=30",
                "RateLimit-Policy", "100;w=60, 10000;w=86400");
        assertThat(s.dialect()).isEqualTo("ietf-draft-07");
        PolicySnapshot p = s.policies().get(0);
        assertThat(p.quota()).isEqualTo(100L);
        assertThat(p.remaining()).isEqualTo(50L);
        assertThat(p.resetIn()).isEqualTo(Duration.ofSeconds(30));
        assertThat(p.windowSeconds()).isEqualTo(60L);
        assertThat(s.policies().get(1).quota()).isEqualTo(10_000L);
        assertThat(s.policies().get(1).kind()).isEqualTo(PolicyKind.QUOTA);
    }

    @Test
    void aDraft11ListIsNotThisDictionary() {
        assertThat(readWith(IetfDraft07Dialect.INSTANCE, 200, null, "RateLimit", "\"default\";r=50;t=30")).isEmpty();
        assertThat(readWith(IetfDraft07Dialect.INSTANCE, 200, null, "RateLimit", "quota;t=1")).isEmpty();
    }

    @Test
    void nonIntegerMembersAreIgnored() {
        PolicySnapshot p = readWith(IetfDraft07Dialect.INSTANCE, 200, null, "RateLimit", "limit=100, remaining=\"x\", reset=-5")
                .orElseThrow().policies().get(0);
        assertThat(p.quota()).isEqualTo(100L);
        assertThat(p.remaining()).isNull();
        assertThat(p.resetIn()).isNull();
    }
}
