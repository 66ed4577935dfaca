package dev.sluice.wire.dialect;

import static dev.sluice.wire.dialect.Responses.read;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.junit.jupiter.api.Test;

class CloudflareDialectTest {

    @Test
    void theGlobalLimitMessageGivesQuotaAndWindow() {
        RateLimitSnapshot s = read(429, "{\"success\":false,\"errors\":[{\"code\":10100,\"message\":\"More than 1200 "
                + "requests per 300 seconds reached. Please wait and consider throttling your request speed\"}],"
                + "\"messages\":[],\"result\":null}");
        assertThat(s.dialect()).isEqualTo("cloudflare");
        assertThat(s.outcome()).isEqualTo(Outcome.RATE_LIMITED);
        assertThat(s.policies().get(0).quota()).isEqualTo(1200L);
        assertThat(s.policies().get(0).windowSeconds()).isEqualTo(300L);
        assertThat(s.attributes()).containsEntry("error_code", "10100");
    }

    @Test
    void otherCloudflareErrorsAreNotThisDialect() {
        assertThat(read(403, "{\"success\":false,\"errors\":[{\"code\":10000,\"message\":\"Authentication error\"}]}")
                .outcome()).isEqualTo(Outcome.CLIENT_ERROR);
    }
}
