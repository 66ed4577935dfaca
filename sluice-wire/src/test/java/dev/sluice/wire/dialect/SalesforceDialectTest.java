package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.junit.jupiter.api.Test;

class SalesforceDialectTest {

    @Test
    void eachUsagePairIsAQuotaPolicy() {
        RateLimitSnapshot s = read(200, null, "Sforce-Limit-Info",
                "api-usage=25/5000; per-app-api-usage=17/250(appName=sample-connected-app)");
        assertThat(s.dialect()).isEqualTo("salesforce");
        PolicySnapshot org = s.policy("api-usage").orElseThrow();
        assertThat(org.remaining()).isEqualTo(4975L);
        assertThat(org.kind()).isEqualTo(PolicyKind.QUOTA);
        PolicySnapshot app = s.policy("per-app-api-usage").orElseThrow();
        assertThat(app.quota()).isEqualTo(250L);
        assertThat(app.attributes()).containsEntry("appName", "sample-connected-app");
    }

    @Test
    void malformedPairsAreSkipped() {
        assertThat(read(200, null, "Sforce-Limit-Info", "api-usage=lots; x=1/2(appName=").policies())
                .extracting(PolicySnapshot::name).containsExactly("x");
    }
}
