package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.TestUpstream;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class SmokeTest {

    @Test
    void proxiesAnAuthenticatedRequestWithRateLimitFields() {
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(Edges.SHIPLANE, up, "2026-11-30T18:00:00Z")) {
            HttpResponse<String> r = edge.get("/v1/quotes", "sk_test_free_1");
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(up.requests()).isEqualTo(1);
            assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
            HttpResponse<String> x = edge.get("/v1/quotes", "nope");
            assertThat(x.statusCode()).isEqualTo(401);
            assertThat(up.requests()).isEqualTo(1);
        }
    }
}
