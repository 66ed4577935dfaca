package dev.sluice.edge.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.config.ProblemConfig;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.testing.Edges;
import dev.sluice.edge.testing.NoLeaks;
import dev.sluice.edge.testing.TestUpstream;
import dev.sluice.time.ManualTimeSource;
import dev.sluice.wire.ratelimit.RateLimitReader;
import dev.sluice.wire.ratelimit.ReadResult;
import dev.sluice.wire.ratelimit.ServiceLimit;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The regression cases of {@code testdata/cases/regression-cases.md} that concern the edge, over HTTP. */
@ExtendWith(NoLeaks.class)
class RegressionCasesHttpTest {

    private static final String FREE = "sk_test_free_1";
    private static final Pattern DELAY_SECONDS = Pattern.compile("[0-9]+");

    @Test
    void r02RetryAfterAndTAreWholeNonNegativeSecondsAndHonouringTheHintSucceeds() {
        // R02: servers in the wild emitted 0.503, 292.052 and -43; ours rounds the exact wait up, >= 1
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(Edges.SHIPLANE, up, "2026-11-30T12:00:00Z")) {
            int denials = 0;
            for (int step = 0; step < 120; step++) {
                HttpResponse<String> r = edge.get("/v1/quotes", FREE);
                List<ServiceLimit> limits = RateLimitReader.readServiceLimits(r.headers().allValues("RateLimit")).values();
                for (ServiceLimit l : limits) {
                    assertThat(l.remaining()).isNotNegative();
                    assertThat(l.resetSeconds()).isNotNull().isNotNegative();
                }
                if (r.statusCode() == 429) {
                    denials++;
                    String retryAfter = r.headers().firstValue("Retry-After").orElseThrow();
                    assertThat(retryAfter).matches(DELAY_SECONDS);
                    long seconds = Long.parseLong(retryAfter);
                    assertThat(seconds).isGreaterThanOrEqualTo(1);
                    assertThat(limits.get(0).resetSeconds()).isEqualTo(seconds); // SPEC §2.3
                    // a client that waits exactly Retry-After is admitted
                    edge.time.advance(Duration.ofSeconds(seconds));
                    assertThat(edge.get("/v1/quotes", FREE).statusCode()).isEqualTo(200);
                }
                edge.time.advanceMillis(37); // 27 req/s offered against 10/s: fractional waits everywhere
            }
            assertThat(denials).as("the offered rate must produce denials to check").isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void r06TheEdgeEmitsOnlyTheDraft11StructuredFieldForm() {
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(Edges.SHIPLANE, up, "2026-11-30T12:00:00Z")) {
            edge.exhaustBurst(FREE);
            for (HttpResponse<String> r : List.of(edge.get("/v1/usage", FREE), edge.get("/v1/quotes", FREE))) {
                assertThat(r.headers().map().keySet()).map(k -> k.toLowerCase(Locale.ROOT))
                        .doesNotContain("ratelimit-limit", "ratelimit-remaining", "ratelimit-reset",
                                "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset");
                ReadResult<dev.sluice.wire.ratelimit.QuotaPolicy> policies =
                        RateLimitReader.readPolicies(r.headers().allValues("RateLimit-Policy"));
                ReadResult<ServiceLimit> limits = RateLimitReader.readServiceLimits(r.headers().allValues("RateLimit"));
                assertThat(policies.isClean()).isTrue();
                assertThat(limits.isClean()).isTrue();
                assertThat(policies.values()).extracting(dev.sluice.wire.ratelimit.QuotaPolicy::name)
                        .containsExactly("burst", "daily");
                assertThat(limits.values()).extracting(ServiceLimit::name).containsExactly("burst", "daily");
                // names are sf-strings, parameters integers: "burst";r=0;t=1
                Matcher m = Pattern.compile("\"burst\";r=\\d+;t=\\d+, \"daily\";r=\\d+;t=\\d+")
                        .matcher(r.headers().firstValue("RateLimit").orElseThrow());
                assertThat(m.matches()).isTrue();
            }
        }
    }

    @Test
    void r13APartiallyRefilledTokenIsWaitedForNotAWholePeriod() {
        // R13: capacity 1, 1 token/s; consume at t=0; at t=200 ms the exact wait is 800 ms, sent as 1
        String yaml = """
                plans:
                  one:
                    policies:
                      - { name: second, kind: burst, q: 1, w: 1 }
                keys:
                  sk_one: one
                """;
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(yaml, up, "2026-11-30T12:00:00Z")) {
            assertThat(edge.get("/v1/x", "sk_one").statusCode()).isEqualTo(200);
            edge.time.advanceMillis(200);
            HttpResponse<String> denied = edge.get("/v1/x", "sk_one");
            assertThat(denied.statusCode()).isEqualTo(429);
            assertThat(denied.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(denied.headers().firstValue("RateLimit")).hasValue("\"second\";r=0;t=1");
            assertThat(denied.body()).contains("\"retry_after_s\":1");
            edge.time.advanceMillis(799);
            assertThat(edge.get("/v1/x", "sk_one").statusCode()).isEqualTo(429);
            edge.time.advanceMillis(1);
            assertThat(edge.get("/v1/x", "sk_one").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void r19RateLimitedQuotaExhaustedAndOverloadedAreNeverCacheable() {
        // R19: a CDN replayed a throttling answer for 11 minutes; every 429/503 keeps its status,
        // is problem+json and carries Cache-Control: no-store, without Expires or a max-age
        Problems problems = new Problems(ProblemConfig.DEFAULT);
        EdgeStage shedQuotes = (request, chain) -> request.route().id().equals("GET /v1/quotes")
                ? CompletableFuture.completedFuture(new Verdict.Answer(problems.overloaded(Duration.ofSeconds(2),
                        "Shed to protect the API."), new DecisionRecord(request.route().id(), request.keyClass(),
                        DecisionOutcome.SHED, false)))
                : chain.proceed(request);
        try (TestUpstream up = new TestUpstream(); Edges edge = Edges.start(EdgeConfig.parse("t.yaml", Edges.SHIPLANE),
                up.url(), ManualTimeSource.at("2026-11-30T12:00:00Z"),
                EdgeOptions.defaults().withStages(List.of(shedQuotes)))) {
            edge.exhaustBurst(FREE);
            HttpResponse<String> rateLimited = edge.get("/v1/usage-less", FREE);
            edge.spend("sk_test_free_2", 10_000);
            HttpResponse<String> quotaExhausted = edge.get("/v1/anything", "sk_test_free_2");
            HttpResponse<String> overloaded = edge.get("/v1/quotes", "sk_test_pro_1");
            assertThat(List.of(rateLimited.statusCode(), quotaExhausted.statusCode(), overloaded.statusCode()))
                    .containsExactly(429, 429, 503);
            assertThat(rateLimited.body()).contains("/errors/rate_limited");
            assertThat(quotaExhausted.body()).contains("/errors/quota_exhausted");
            assertThat(overloaded.body()).contains("/errors/overloaded");
            for (HttpResponse<String> r : List.of(rateLimited, quotaExhausted, overloaded)) {
                assertThat(r.headers().allValues("Cache-Control")).containsExactly("no-store");
                assertThat(r.headers().firstValue("Expires")).isEmpty();
                assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(r.headers().firstValue("Retry-After")).isPresent();
            }
            assertThat(up.requests()).isZero();
            assertThat(edge.metrics()).contains("outcome=\"shed\",route=\"GET /v1/quotes\"} 1.0");
        }
    }
}
