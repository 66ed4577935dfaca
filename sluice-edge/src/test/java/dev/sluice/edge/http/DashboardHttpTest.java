package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.AdminConfig;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin port's dashboard over loopback against a running edge: the page at {@code /} and the JSON it
 * polls at {@code /admin/v1/dashboard}, with the numbers of the traffic the test sent.
 */
@ExtendWith(NoLeaks.class)
class DashboardHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FREE_1 = "sk_test_free_1";
    private static final String FREE_2 = "sk_test_free_2";
    private static final String PRO_1 = "sk_test_pro_1";

    @Test
    void theSnapshotCarriesRatesPerPlanAndRouteTheRefusedKeyByIdAndTheWarning() throws Exception {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z")) {
            edge.spend(FREE_2, 7_999);
            assertThat(edge.get("/v1/quotes", FREE_2).statusCode()).isEqualTo(200); // the 8,000th: SPEC §3.8
            edge.time.advance(Duration.ofSeconds(60)); // that request leaves the 10 s window
            // 30 requests at one instant: the free burst (q=20) admits 20 and refuses 10
            int refused = 0;
            for (int i = 0; i < 30; i++) {
                refused += edge.get("/v1/quotes", FREE_1).statusCode() == 429 ? 1 : 0;
            }
            assertThat(refused).isEqualTo(10);
            for (int i = 0; i < 5; i++) {
                assertThat(edge.post("/v1/labels", PRO_1, "{}").statusCode()).isEqualTo(200);
            }
            assertThat(edge.get("/v1/quotes", "sk_unknown").statusCode()).isEqualTo(401);
            edge.time.advance(Duration.ofSeconds(1)); // the second is over: it counts in the rates

            HttpResponse<String> r = admin(edge, "/admin/v1/dashboard", null);
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
            assertThat(r.body()).doesNotContain("sk_test");
            JsonNode s = JSON.readTree(r.body());
            assertThat(s.get("at").asText()).isEqualTo("2026-11-30T12:14:21Z"); // 800 s of spending, 60 s, 1 s

            JsonNode quotes = series(s, "free", "GET /v1/quotes");
            assertThat(quotes.get("per_second").get("admitted").asDouble()).isEqualTo(2.0); // 20 in 10 s
            assertThat(quotes.get("per_second").get("status_429").asDouble()).isEqualTo(1.0);
            assertThat(quotes.get("total").get("admitted").asLong()).isEqualTo(21);
            assertThat(quotes.get("total").get("status_429").asLong()).isEqualTo(10);
            JsonNode labels = series(s, "pro", "POST /v1/labels");
            assertThat(labels.get("per_second").get("admitted").asDouble()).isEqualTo(0.5);
            assertThat(series(s, "none", "GET /v1/quotes").get("total").get("other").asLong()).isEqualTo(1);

            JsonNode top = s.get("top_rejected_keys");
            assertThat(top).hasSize(1);
            assertThat(top.get(0).get("key_id").asText()).isEqualTo(KeyIds.DEFAULT.id(FREE_1));
            assertThat(top.get(0).get("plan").asText()).isEqualTo("free");
            assertThat(top.get(0).get("rejections").asLong()).isEqualTo(10);
            assertThat(top.get(0).get("status_429").asLong()).isEqualTo(10);
            assertThat(top.get(0).get("error").asLong()).isZero();

            assertThat(s.get("store").get("kind").asText()).isEqualTo("memory");
            JsonNode warnings = s.get("quota_warnings");
            assertThat(warnings.get("total").asInt()).isEqualTo(1);
            assertThat(warnings.get("recent").get(0).get("key_id").asText()).isEqualTo(KeyIds.DEFAULT.id(FREE_2));
            assertThat(warnings.get("recent").get(0).get("used").asLong()).isEqualTo(8_000);
            assertThat(warnings.get("recent").get(0).get("quota").asLong()).isEqualTo(10_000);

            // the same counts as the Prometheus series, which never carry a key id
            assertThat(edge.metrics()).contains("outcome=\"rate_limited\"").doesNotContain(KeyIds.DEFAULT.id(FREE_1));
        }
    }

    @Test
    void thePageIsOneSelfContainedDocumentAllowedNothingButItsOwnScriptStyleAndOrigin() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z")) {
            HttpResponse<String> page = admin(edge, "/", null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            String csp = page.headers().firstValue("Content-Security-Policy").orElseThrow();
            assertThat(csp).startsWith("default-src 'none'; script-src 'sha256-").contains("connect-src 'self'")
                    .doesNotContain("unsafe-inline", "http");
            assertThat(page.body()).contains("id=\"rates\"", "id=\"top-keys\"", "id=\"store-state\"",
                    "id=\"warnings\"", "id=\"plan-filter\"", "id=\"pause\"", "fetch(\"/admin/v1/dashboard\"");
            // no other resource: no src or href attribute, no stylesheet or font import
            assertThat(page.body()).doesNotContainPattern("\\s(src|href)=").doesNotContain("@import", "url(");
            assertThat(admin(edge, "/metrics", null).statusCode()).isEqualTo(200); // the other handlers still answer
            assertThat(admin(edge, "/nothing", null).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void withAnAdminTokenTheDataNeedsItAndThePageDoesNot() {
        EdgeConfig config = EdgeConfig.parse("test.yaml", Edges.SHIPLANE)
                .withAdmin(Optional.of(new AdminConfig("127.0.0.1", 0, Optional.of("s3cret-admin"))));
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(config, upstream.url(), ManualTimeSource.at("2026-11-30T12:00:00Z"))) {
            HttpResponse<String> none = admin(edge, "/admin/v1/dashboard", null);
            assertThat(none.statusCode()).isEqualTo(401);
            assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"sluice-admin\"");
            assertThat(none.body()).doesNotContain("series");
            assertThat(admin(edge, "/admin/v1/dashboard", "wrong").statusCode()).isEqualTo(401);
            assertThat(admin(edge, "/admin/v1/dashboard", "s3cret-admin").statusCode()).isEqualTo(200);
            assertThat(admin(edge, "/", null).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void onlyGetAndHeadAreAnswered() {
        try (TestUpstream upstream = new TestUpstream();
                Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z")) {
            HttpResponse<String> post = edge.send(HttpRequest.newBuilder(adminUri(edge, "/admin/v1/dashboard"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).timeout(Duration.ofSeconds(10)).build());
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
        }
    }

    private static JsonNode series(JsonNode snapshot, String plan, String route) {
        for (JsonNode n : snapshot.get("series")) {
            if (n.get("plan").asText().equals(plan) && n.get("route").asText().equals(route)) {
                return n;
            }
        }
        throw new AssertionError("no series " + plan + " " + route + " in " + snapshot.get("series"));
    }

    private static URI adminUri(Edges edge, String path) {
        return URI.create("http://127.0.0.1:" + edge.server.adminPort() + path);
    }

    private static HttpResponse<String> admin(Edges edge, String path, String token) {
        HttpRequest.Builder b = HttpRequest.newBuilder(adminUri(edge, path)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return edge.send(b.build());
    }
}
