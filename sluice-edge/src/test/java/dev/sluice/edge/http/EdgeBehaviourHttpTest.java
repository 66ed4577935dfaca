package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.edge.testing.TestUpstream.Reply;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SPEC §3.5–§3.9 and §3.13a over real HTTP: caching, usage, anonymous routes, soft limit, refunds, dry-run. */
class EdgeBehaviourHttpTest extends ShiplaneEdgeHttpTest {

    private static final String FREE = "sk_test_free_1";

    @Test
    void every429And503CarriesNoStoreAndA429CarriesRetryAfter() {
        // SPEC §3.5; R19: a rejection must never be replayed by a shared cache
        edge.spend(FREE, 10_000);
        HttpResponse<String> quota = edge.get("/v1/quotes", FREE);
        upstream.reply("/v1/down", new Reply(503, Map.of("Cache-Control", "public, max-age=600",
                "Retry-After", "5"), "{}".getBytes()));
        HttpResponse<String> unavailable = edge.get("/v1/usage", FREE);
        assertThat(quota.statusCode()).isEqualTo(429);
        assertThat(quota.headers().allValues("Cache-Control")).containsExactly("no-store");
        assertThat(quota.headers().firstValue("Expires")).isEmpty();
        assertThat(unavailable.headers().allValues("Cache-Control")).containsExactly("no-store");

        edge.advanceTo("2026-12-01T00:00:01Z");
        HttpResponse<String> upstream503 = edge.get("/v1/down", FREE);
        assertThat(upstream503.statusCode()).isEqualTo(503);
        assertThat(upstream503.headers().allValues("Cache-Control")).containsExactly("no-store");
        assertThat(upstream503.headers().firstValue("Retry-After")).hasValue("5");
    }

    @Test
    void publiclyCacheableUpstreamResponsesBecomePrivateWhenTheyCarryPerKeyFields() {
        upstream.reply("/v1/quotes", new Reply(200, Map.of("Cache-Control", "public, max-age=60, s-maxage=300"),
                "{}".getBytes()));
        HttpResponse<String> r = edge.get("/v1/quotes", FREE);
        assertThat(r.headers().allValues("Cache-Control")).containsExactly("private, max-age=60");
    }

    @Test
    void usageIsAnsweredByTheEdgeWithoutChargingOrReachingTheUpstream() {
        edge.get("/v1/quotes", FREE);
        for (int i = 0; i < 30; i++) {
            HttpResponse<String> u = edge.get("/v1/usage", FREE);
            assertThat(u.statusCode()).isEqualTo(200);
            assertThat(u.headers().allValues("Cache-Control")).containsExactly("no-store");
            // SPEC §3.6: {"plan", "limits": [{name, q, w, r, reset_at (quota policies)}]}
            assertThat(u.body()).isEqualTo("{\"plan\":\"free\",\"limits\":[{\"name\":\"burst\",\"q\":20,\"w\":2,\"r\":19},"
                    + "{\"name\":\"daily\",\"q\":10000,\"w\":86400,\"r\":9999,\"reset_at\":\"2026-12-01T00:00:00Z\"}]}");
        }
        assertThat(upstream.requests()).isEqualTo(1);
    }

    @Test
    void anonymousRouteIsLimitedPerClientIpAndRevealsNothing() {
        // SPEC §3.7: 5 per minute per client IP by default; no RateLimit fields, a generic body
        upstream.reply("/v1/login", new Reply(200, Map.of("RateLimit", "\"upstream\";r=1;t=1"), "{}".getBytes()));
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> ok = edge.post("/v1/login", null, "{\"user\":\"a\"}");
            assertThat(ok.statusCode()).isEqualTo(200);
            assertThat(ok.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("ratelimit"));
        }
        HttpResponse<String> denied = edge.post("/v1/login", null, "{\"user\":\"a\"}");
        assertThat(denied.statusCode()).isEqualTo(429);
        assertThat(denied.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("ratelimit"));
        assertThat(denied.headers().allValues("Cache-Control")).containsExactly("no-store");
        // honest (a full window always clears it) but constant: nothing to pace against
        assertThat(denied.headers().firstValue("Retry-After")).hasValue("60");
        assertThat(denied.body()).doesNotContain("remaining").doesNotContain("\"limit\"").doesNotContain("per-ip")
                .doesNotContain("retry_after_s");
        assertThat(upstream.requests()).isEqualTo(5);
    }

    @Test
    void anonymousRouteIgnoresAnApiKeyAndStillRevealsNothing() {
        HttpResponse<String> r = edge.post("/v1/login", FREE, "{}");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().map().keySet()).noneMatch(h -> h.toLowerCase().startsWith("ratelimit"));
        assertThat(edge.get("/v1/usage", FREE).body()).contains("\"r\":10000");
    }

    @Test
    void softLimitAddsTheWarningFieldPast80PercentAndEmitsOneEventPerWindow() {
        // SPEC §3.8: 8,000 of 10,000 is the threshold
        edge.spend(FREE, 7_998);
        HttpResponse<String> before = edge.get("/v1/quotes", FREE);
        assertThat(before.headers().firstValue("RateLimit-Warning")).isEmpty();
        assertThat(edge.quotaWarnings()).isEmpty();
        HttpResponse<String> crossing = edge.get("/v1/quotes", FREE);
        assertThat(crossing.headers().allValues("RateLimit-Warning")).containsExactly("\"daily\";used=8000;q=10000");
        for (int i = 0; i < 5; i++) {
            assertThat(edge.get("/v1/quotes", FREE).headers().firstValue("RateLimit-Warning")).isPresent();
        }
        assertThat(edge.quotaWarnings()).hasSize(1);
        QuotaWarning w = edge.quotaWarnings().get(0);
        assertThat(w.policy()).isEqualTo("daily");
        assertThat(w.used()).isEqualTo(8_000);
        assertThat(w.quota()).isEqualTo(10_000);
        assertThat(w.windowResetAt()).isEqualTo(Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(w.keyId()).doesNotContain("free_1");
    }

    @Test
    void aRefundBelowTheThresholdDoesNotMakeTheSoftLimitWarnTwice() {
        upstream.reply("/v1/flaky", Reply.status(503));
        edge.spend(FREE, 7_999);
        edge.get("/v1/flaky", FREE); // crosses 8,000, then is refunded
        edge.get("/v1/quotes", FREE); // crosses again in the same window
        assertThat(edge.quotaWarnings()).hasSize(1);
    }

    @Test
    void upstream503IsRefundedToThePoliciesItWasChargedTo() {
        // SPEC §3.9, last sentence
        upstream.reply("/v1/flaky", Reply.status(503));
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = edge.get("/v1/flaky", FREE);
            assertThat(r.statusCode()).isEqualTo(503);
            // SPEC §2.2: the 503 tells what is left after its refund, not the charged state
            assertThat(r.headers().firstValue("RateLimit")).hasValue("\"burst\";r=20;t=0, \"daily\";r=10000;t=0");
        }
        assertThat(upstream.requests()).isEqualTo(3);
        // each charge was given back
        assertThat(edge.get("/v1/usage", FREE).body()).contains("\"r\":20}").contains("\"r\":10000,");
    }

    @Test
    void upstream500IsNotRefunded() {
        upstream.reply("/v1/broken", Reply.status(500));
        edge.get("/v1/broken", FREE);
        assertThat(edge.get("/v1/usage", FREE).body()).contains("\"r\":19}").contains("\"r\":9999,");
    }

    @Test
    void dryRunRouteNeverRejectsButCountsAndReportsTheDenial() {
        // SPEC §3.13a
        for (int i = 0; i < 40; i++) {
            HttpResponse<String> r = edge.get("/v1/dry", FREE);
            assertThat(r.statusCode()).isEqualTo(200);
        }
        HttpResponse<String> last = edge.get("/v1/dry", FREE);
        assertThat(last.statusCode()).isEqualTo(200);
        assertThat(last.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"burst\";r=0;t=1,");
        assertThat(upstream.requests()).isEqualTo(41);
        String metrics = edge.metrics();
        assertThat(metrics).contains("sluice_edge_decisions_total{dry_run=\"true\",key_class=\"free\","
                + "outcome=\"rate_limited\",route=\"GET /v1/dry\"} 21.0");
        assertThat(metrics).contains("sluice_edge_decisions_total{dry_run=\"true\",key_class=\"free\","
                + "outcome=\"allowed\",route=\"GET /v1/dry\"} 20.0");
    }

    @Test
    void metricsCountDecisionsByOutcomeAndRouteWithoutPerKeyLabels() {
        edge.get("/v1/quotes", FREE);
        edge.get("/v1/quotes", "sk_unknown");
        edge.post("/v1/labels:huge", FREE, "{}");
        String m = edge.metrics();
        assertThat(m).contains("sluice_edge_decisions_total{dry_run=\"false\",key_class=\"free\",outcome=\"allowed\","
                + "route=\"GET /v1/quotes\"} 1.0");
        assertThat(m).contains("sluice_edge_decisions_total{dry_run=\"false\",key_class=\"none\","
                + "outcome=\"unauthenticated\",route=\"GET /v1/quotes\"} 1.0");
        assertThat(m).contains("outcome=\"cost_exceeds_burst\",route=\"POST /v1/labels:huge\"} 1.0");
        assertThat(m).contains("sluice_edge_upstream_responses_total{class=\"2xx\",route=\"GET /v1/quotes\"} 1.0");
        assertThat(m).contains("sluice_edge_decision_seconds_bucket{le=\"0.001\"}");
        assertThat(m).doesNotContain(FREE).doesNotContain("sk_unknown");
    }
}
