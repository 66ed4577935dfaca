package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ShopifyDialectTest {

    @Test
    void callLimitIsUsedOverBucketSize() {
        RateLimitSnapshot s = read(200, null, "X-Shopify-Shop-Api-Call-Limit", "32/40");
        assertThat(s.dialect()).isEqualTo("shopify");
        assertThat(s.policies().get(0).used()).isEqualTo(32L);
        assertThat(s.policies().get(0).quota()).isEqualTo(40L);
        assertThat(s.policies().get(0).remaining()).isEqualTo(8L);
        assertThat(s.policies().get(0).kind()).isEqualTo(PolicyKind.BURST);
    }

    @Test
    void a429WithDecimalRetryAfterWaitsTwoSeconds() {
        RateLimitSnapshot s = read(429, null, "X-Shopify-Shop-Api-Call-Limit", "40/40", "Retry-After", "2.0");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.retryAfter()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.policies().get(0).remaining()).isZero();
    }

    @Test
    void aMalformedCallLimitReportsNoPolicy() {
        assertThat(read(200, null, "X-Shopify-Shop-Api-Call-Limit", "40").policies()).isEmpty();
        assertThat(read(200, null, "X-Shopify-Shop-Api-Call-Limit", "a/b").policies()).isEmpty();
    }
}
