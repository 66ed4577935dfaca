package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.testing.Captures.Capture;
import dev.sluice.edge.testing.Captures;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream.Reply;
import dev.sluice.edge.testing.TestUpstream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The contract of SPEC §2.1–§2.3, §3.3 and §3.4 over real HTTP: the edge on a fake clock in front of
 * a counting upstream, compared with the shipped example responses ({@code examples/responses}).
 */
@ExtendWith(NoLeaks.class)
class RateLimitContractHttpTest {

    private static final String FREE = "sk_test_free_1";

    @AutoClose
    private final TestUpstream upstream = new TestUpstream().reply("/v1/labels", new Reply(201,
            Map.of("Content-Type", "application/json"),
            "{\"label_id\":\"lbl_77120\",\"tracking_number\":\"1Z999AA10123456784\"}".getBytes(StandardCharsets.UTF_8)));
    @AutoClose
    private final Edges edge = Edges.start(Edges.SHIPLANE, upstream, "2026-11-30T12:00:00Z");

    @Test
    void spec21FreeKeyAt1800AfterThirteenBurstTokensAnd7690DailyUnits() {
        // SPEC §2.1: 7,690 daily units spent, 13 of them in the burst at 18:00 UTC. The 13th request
        // at 18:00 is the one whose response reports r=7 (20 - 13) and t=2 (13 tokens refill in 1.3 s)
        edge.spend(FREE, 7_690 - 13);
        edge.advanceTo("2026-11-30T18:00:00Z");
        HttpResponse<String> r = null;
        for (int i = 0; i < 13; i++) {
            r = edge.post("/v1/labels", FREE, "{\"shipment_id\":\"shp_4410\",\"rate_id\":\"rate_ups_ground\"}");
            assertThat(r.statusCode()).isEqualTo(201);
        }
        assertThat(r.headers().allValues("RateLimit-Policy"))
                .containsExactly("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
        assertThat(r.headers().allValues("RateLimit"))
                .containsExactly("\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
        Capture capture = Captures.read("201-label-created.http");
        assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue(capture.header("RateLimit-Policy"));
        assertThat(r.headers().firstValue("RateLimit")).hasValue(capture.header("RateLimit"));
        assertThat(r.body()).isEqualTo(capture.body());
        assertThat(upstream.requests()).isEqualTo(13);
    }

    @Test
    void spec34DailyQuotaBodyAt1840SaysDailyAnd19200SecondsLikeTheHeader() {
        edge.spend(FREE, 10_000);
        edge.advanceTo("2026-11-30T18:40:00Z");
        HttpResponse<String> r = edge.post("/v1/labels", FREE, "{}");
        Capture capture = Captures.read("429-daily-quota.http");
        assertThat(r.statusCode()).isEqualTo(429);
        // 00:00 UTC is 5 h 20 min away: 19,200 s (SPEC §3.4), in the header and in the body
        assertThat(r.headers().firstValue("Retry-After")).hasValue("19200");
        assertThat(r.body()).contains("\"limit\":\"daily\"").contains("\"retry_after_s\":19200");
        assertThat(r.body()).isEqualTo(capture.body());
        for (String field : new String[] {"Content-Type", "Cache-Control", "Retry-After", "RateLimit-Policy",
                "RateLimit"}) {
            assertThat(r.headers().allValues(field)).as(field).containsExactly(capture.header(field));
        }
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void burstDenialMatchesTheShippedRateLimitedResponse() {
        edge.spend(FREE, 7_690);
        edge.advanceTo("2026-11-30T18:00:00Z");
        for (int i = 0; i < 20; i++) {
            assertThat(edge.post("/v1/labels", FREE, "{}").statusCode()).isEqualTo(201);
        }
        HttpResponse<String> r = edge.post("/v1/labels", FREE, "{}");
        Capture capture = Captures.read("429-rate-limited.http");
        assertThat(r.statusCode()).isEqualTo(429);
        assertThat(r.body()).isEqualTo(capture.body());
        for (String field : new String[] {"Content-Type", "Cache-Control", "Retry-After", "RateLimit-Policy",
                "RateLimit"}) {
            assertThat(r.headers().allValues(field)).as(field).containsExactly(capture.header(field));
        }
        // SPEC §2.3: the denying policy's t equals Retry-After
        assertThat(r.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"burst\";r=0;t=1,");
        assertThat(upstream.requests()).isEqualTo(20);
    }

    @Test
    void dailyDenialDoesNotBurnBurstTokens() {
        edge.spend(FREE, 9_999);
        HttpResponse<String> last = edge.get("/v1/quotes", FREE);
        assertThat(last.statusCode()).isEqualTo(200);
        assertThat(last.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"burst\";r=19;");
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> denied = edge.get("/v1/quotes", FREE);
            assertThat(denied.statusCode()).isEqualTo(429);
            assertThat(denied.body()).contains("quota_exhausted");
            // SPEC §3.3: nothing charged, so the burst still has 19
            assertThat(denied.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"burst\";r=19;");
        }
        assertThat(edge.get("/v1/usage", FREE).body()).contains("{\"name\":\"burst\",\"q\":20,\"w\":2,\"r\":19}");
        assertThat(upstream.requests()).isEqualTo(1);
    }

    @Test
    void burstDenialDoesNotChargeTheDailyQuota() {
        for (int i = 0; i < 20; i++) {
            assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(200);
        }
        for (int i = 0; i < 5; i++) {
            HttpResponse<String> denied = edge.get("/v1/quotes", FREE);
            assertThat(denied.statusCode()).isEqualTo(429);
            assertThat(denied.body()).contains("rate_limited");
            assertThat(denied.headers().firstValue("RateLimit").orElseThrow()).contains("\"daily\";r=9980;");
        }
        assertThat(edge.get("/v1/usage", FREE).body()).contains("\"name\":\"daily\",\"q\":10000,\"w\":86400,\"r\":9980");
    }

    @Test
    void everyResponseToAKeyCarriesBothFieldsWhateverItsStatus() {
        upstream.reply("/v1/missing", Reply.status(404));
        upstream.reply("/v1/broken", Reply.status(500));
        HttpResponse<String> ok = edge.get("/v1/quotes", FREE);
        HttpResponse<String> notFound = edge.get("/v1/missing", FREE);
        HttpResponse<String> broken = edge.get("/v1/broken", FREE);
        HttpResponse<String> tooBig = edge.post("/v1/labels:huge", FREE, "{}");
        HttpResponse<String> usage = edge.get("/v1/usage", FREE);
        for (HttpResponse<String> r : java.util.List.of(ok, notFound, broken, tooBig, usage)) {
            assertThat(r.headers().allValues("RateLimit-Policy")).as("status " + r.statusCode())
                    .containsExactly("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
            assertThat(r.headers().allValues("RateLimit")).as("status " + r.statusCode()).hasSize(1);
        }
        assertThat(java.util.List.of(ok.statusCode(), notFound.statusCode(), broken.statusCode(),
                tooBig.statusCode(), usage.statusCode())).containsExactly(200, 404, 500, 400, 200);
    }

    @Test
    void upstreamRateLimitFieldsAreReplacedByTheEdgesOwn() {
        upstream.reply("/v1/quotes", new Reply(200, Map.of("RateLimit", "\"upstream\";r=1;t=1",
                "RateLimit-Policy", "\"upstream\";q=1"), new byte[0]));
        HttpResponse<String> r = edge.get("/v1/quotes", FREE);
        assertThat(r.headers().allValues("RateLimit")).containsExactly("\"burst\";r=19;t=1, \"daily\";r=9999;t=43200");
        assertThat(r.headers().allValues("RateLimit-Policy"))
                .containsExactly("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
    }

    @Test
    void costExceedingTheBurstIs400WithoutRetryAfterAndChargesNothing() {
        // SPEC §3.10 / R14a: cost 30 > burst q 20 can never fit; waiting cannot help
        HttpResponse<String> r = edge.post("/v1/labels:huge", FREE, "{}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(r.headers().firstValue("Retry-After")).isEmpty();
        assertThat(r.body()).contains("\"type\":\"https://docs.shiplane.example/errors/cost_exceeds_burst\"")
                .contains("\"limit\":\"burst\"");
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"burst\";r=20;t=0, \"daily\";r=10000;t=0");
        assertThat(upstream.requests()).isZero();
    }

    @Test
    void batchRouteCostsTen() {
        // SPEC §3.10: POST /v1/labels:batch costs 10, flat
        HttpResponse<String> r = edge.post("/v1/labels:batch", FREE, "[]");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"burst\";r=10;t=1, \"daily\";r=9990;t=43200");
    }
}
