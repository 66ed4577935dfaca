package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class AzureDialectTest {

    @Test
    void scopedCountersComeBeforeResourceProviderPolicies() {
        RateLimitSnapshot s = read(200, null,
                "x-ms-ratelimit-remaining-resource", "Microsoft.Compute/GetVMScaleSet3Min;197,Microsoft.Compute/GetVMScaleSet30Min;1297",
                "x-ms-ratelimit-remaining-subscription-reads", "11999");
        assertThat(s.dialect()).isEqualTo("azure");
        assertThat(s.policies()).extracting(PolicySnapshot::name).containsExactly("subscription-reads",
                "Microsoft.Compute/GetVMScaleSet3Min", "Microsoft.Compute/GetVMScaleSet30Min");
        assertThat(s.policies()).extracting(PolicySnapshot::remaining).containsExactly(11_999L, 197L, 1_297L);
    }

    @Test
    void xMsRetryAfterMsIsAHint() {
        RateLimitSnapshot s = read(429, null, "x-ms-ratelimit-remaining-subscription-writes", "0", "x-ms-retry-after-ms", "2500");
        assertThat(s.retryAfter()).isEqualTo(Duration.ofMillis(2500));
    }
}
