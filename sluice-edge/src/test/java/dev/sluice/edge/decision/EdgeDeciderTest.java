package dev.sluice.edge.decision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.memory.InMemoryLimiterStore;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The decision as a pure function of (request head, limiter state, now) — DESIGN.md "Seams": no
 * socket, no Netty, a fake clock.
 */
class EdgeDeciderTest {

    private static final String YAML = """
            problem: { base-uri: https://docs.shiplane.example }
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 20, w: 2 }
                  - { name: daily, kind: quota, q: 10000, window: daily }
              tiny:
                policies:
                  - { name: second, kind: burst, q: 1, w: 1 }
              bytes:
                policies:
                  - { name: upload, kind: burst, q: 1000, w: 1, unit: content-bytes }
            keys:
              sk_free: free
              sk_tiny: tiny
              sk_bytes: bytes
            routes:
              - { method: GET, path: /v1/usage, handler: usage }
              - { method: POST, path: "/v1/labels:huge", cost: 30 }
              - { method: GET, path: /v1/dry, dry-run: true }
              - { method: POST, path: /v1/login, anonymous: true }
            """;

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final InMemoryLimiterStore store = new InMemoryLimiterStore(time);
    private final EdgeConfig config = EdgeConfig.parse("decider.yaml", YAML);

    private EdgeDecider decider(List<EdgeStage> stages) {
        return new EdgeDecider(new EdgeRules(config), store, time, stages);
    }

    private static RequestHead get(String path, String key) {
        return RequestHead.of("GET", path, key == null ? null : "Bearer " + key, "192.0.2.7");
    }

    private static Verdict now(CompletionStage<Verdict> stage) {
        CompletableFuture<Verdict> f = stage.toCompletableFuture();
        assertThat(f).as("the in-memory store decides inline").isDone();
        return f.join();
    }

    private static String header(List<Header> headers, String name) {
        return headers.stream().filter(h -> h.name().equalsIgnoreCase(name)).map(Header::value).findFirst()
                .orElse(null);
    }

    @Test
    void spec21FieldsComeFromTheHeadAndTheLimiterStateAlone() {
        // 7,677 units spent during the afternoon, in bursts the bucket allows
        Plan free = config.binding("sk_free").orElseThrow().plan();
        time.setNow(java.time.Instant.parse("2026-11-30T17:00:00Z"));
        for (int i = 0; i < 384; i++) {
            assertThat(store.decide("sk_free", free, Costs.requests(i < 383 ? 20 : 17))).isInstanceOf(Allowed.class);
            time.advance(Duration.ofSeconds(2));
        }
        time.setNow(java.time.Instant.parse("2026-11-30T18:00:00Z"));
        EdgeDecider d = decider(List.of());
        Verdict v = null;
        for (int i = 0; i < 13; i++) {
            v = now(d.decide(get("/v1/labels", "sk_free")));
        }
        Verdict.Forward f = (Verdict.Forward) v;
        assertThat(header(f.responseHeaders(), "RateLimit-Policy"))
                .isEqualTo("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
        assertThat(header(f.responseHeaders(), "RateLimit")).isEqualTo("\"burst\";r=7;t=2, \"daily\";r=2310;t=21600");
        assertThat(f.record()).isEqualTo(new DecisionRecord("* /**", "free", DecisionOutcome.ALLOWED, false));
    }

    @Test
    void missingMalformedAndUnknownKeysAre401AndTouchNoState() {
        EdgeDecider d = decider(List.of());
        for (RequestHead head : List.of(get("/v1/labels", null), RequestHead.of("GET", "/v1/labels", "Basic eDp5",
                "192.0.2.7"), get("/v1/labels", "sk_nobody"), get("/v1/usage", "sk_nobody"))) {
            Verdict.Answer a = (Verdict.Answer) now(d.decide(head));
            assertThat(a.response().status()).isEqualTo(401);
            assertThat(a.record().outcome()).isEqualTo(DecisionOutcome.UNAUTHENTICATED);
            assertThat(a.response().header("RateLimit")).isEmpty();
        }
        assertThat(store.keyCount()).isZero();
    }

    @Test
    void rateLimitFieldsOffLeavesThemOutButStillLimits() {
        // rate-limit-fields: false (like-for-like benchmarks against nginx): same decisions, no fields
        EdgeDecider d = new EdgeDecider(new EdgeRules(config.withRateLimitFields(false)), store, time, List.of());
        Verdict.Forward admitted = (Verdict.Forward) now(d.decide(get("/v1/x", "sk_tiny")));
        assertThat(admitted.responseHeaders()).isEmpty();
        Verdict.Answer denied = (Verdict.Answer) now(d.decide(get("/v1/x", "sk_tiny")));
        assertThat(denied.response().status()).isEqualTo(429);
        assertThat(denied.response().header("Retry-After")).hasValue("1");
        assertThat(denied.response().header("RateLimit")).isEmpty();
        assertThat(denied.response().header("RateLimit-Policy")).isEmpty();
        // and on by default (SPEC §2.2)
        assertThat(config.rateLimitFields()).isTrue();
    }

    @Test
    void heldFieldsAreNoneWhenRateLimitFieldsAreOff() {
        // the escalation stage's 429 (SPEC §3.12) follows rate-limit-fields like every other answer
        Caller.ApiKey key = new Caller.ApiKey(config.binding("sk_tiny").orElseThrow());
        EdgeDecider off = new EdgeDecider(new EdgeRules(config.withRateLimitFields(false)), store, time, List.of());
        assertThat(off.heldFields(key, "second", 30).toCompletableFuture().join()).isEmpty();
        EdgeDecider on = decider(List.of());
        assertThat(header(on.heldFields(key, "second", 30).toCompletableFuture().join(), "RateLimit"))
                .isEqualTo("\"second\";r=0;t=30");
    }

    @Test
    void usageIsNotCharged() {
        EdgeDecider d = decider(List.of());
        for (int i = 0; i < 50; i++) {
            Verdict.Answer a = (Verdict.Answer) now(d.decide(get("/v1/usage", "sk_free")));
            assertThat(a.record().outcome()).isEqualTo(DecisionOutcome.USAGE);
            assertThat(a.response().header("Cache-Control")).hasValue("no-store");
        }
        assertThat(store.usage("sk_free", config.binding("sk_free").orElseThrow().plan()))
                .extracting(PolicyState::remaining).containsExactly(20L, 10_000L);
    }

    @Test
    void r13PartiallyRefilledTokenWaits800MillisecondsAndTheWireSaysOneSecond() {
        // R13: capacity 1, 1 token per second; consume at 0, try again at 200 ms
        EdgeDecider d = decider(List.of());
        assertThat(now(d.decide(get("/v1/x", "sk_tiny")))).isInstanceOf(Verdict.Forward.class);
        time.advanceMillis(200);
        Verdict.Answer a = (Verdict.Answer) now(d.decide(get("/v1/x", "sk_tiny")));
        assertThat(a.response().status()).isEqualTo(429);
        assertThat(a.response().header("Retry-After")).hasValue("1");
        assertThat(a.response().header("RateLimit")).hasValue("\"second\";r=0;t=1");
        // honouring it succeeds: 800 ms is exactly enough
        time.advanceMillis(800);
        assertThat(now(d.decide(get("/v1/x", "sk_tiny")))).isInstanceOf(Verdict.Forward.class);
    }

    @Test
    void dryRunForwardsADenialAndRecordsIt() {
        EdgeDecider d = decider(List.of());
        for (int i = 0; i < 20; i++) {
            now(d.decide(get("/v1/dry", "sk_free")));
        }
        Verdict.Forward f = (Verdict.Forward) now(d.decide(get("/v1/dry", "sk_free")));
        assertThat(f.record()).isEqualTo(new DecisionRecord("GET /v1/dry", "free", DecisionOutcome.RATE_LIMITED, true));
        assertThat(f.charge()).isEmpty();
        assertThat(header(f.responseHeaders(), "RateLimit")).startsWith("\"burst\";r=0;t=1, ");
    }

    @Test
    void costAboveTheBurstIs400WithoutRetryAfterAndWithTheKeysFields() {
        Verdict.Answer a = (Verdict.Answer) now(decider(List.of()).decide(new RequestHead("POST", "/v1/labels:huge",
                List.of("Bearer sk_free"), List.of(), false, "192.0.2.7")));
        assertThat(a.response().status()).isEqualTo(400);
        assertThat(a.response().header("Retry-After")).isEmpty();
        assertThat(a.response().header("RateLimit")).hasValue("\"burst\";r=20;t=0, \"daily\";r=10000;t=0");
        assertThat(a.record().outcome()).isEqualTo(DecisionOutcome.COST_EXCEEDS_BURST);
    }

    @Test
    void contentBytesPoliciesAreChargedTheContentLengthAndNeedOne() {
        EdgeDecider d = decider(List.of());
        Verdict.Forward f = (Verdict.Forward) now(d.decide(new RequestHead("POST", "/v1/upload",
                List.of("Bearer sk_bytes"), List.of("600"), true, "192.0.2.7")));
        assertThat(header(f.responseHeaders(), "RateLimit-Policy")).isEqualTo("\"upload\";q=1000;w=1;qu=\"content-bytes\"");
        assertThat(header(f.responseHeaders(), "RateLimit")).isEqualTo("\"upload\";r=400;t=1");
        Verdict.Answer chunked = (Verdict.Answer) now(d.decide(new RequestHead("POST", "/v1/upload",
                List.of("Bearer sk_bytes"), List.of(), true, "192.0.2.7")));
        assertThat(chunked.response().status()).isEqualTo(411);
        Verdict.Answer tooBig = (Verdict.Answer) now(d.decide(new RequestHead("POST", "/v1/upload",
                List.of("Bearer sk_bytes"), List.of("5000"), true, "192.0.2.7")));
        assertThat(tooBig.response().status()).isEqualTo(400);
    }

    @Test
    void anonymousRoutesAreLimitedPerAddressAndCarryNoFields() {
        EdgeDecider d = decider(List.of());
        for (int i = 0; i < 5; i++) {
            Verdict.Forward f = (Verdict.Forward) now(d.decide(RequestHead.of("POST", "/v1/login", null, "192.0.2.7")));
            assertThat(f.responseHeaders()).isEmpty();
        }
        Verdict.Answer a = (Verdict.Answer) now(d.decide(RequestHead.of("POST", "/v1/login", null, "192.0.2.7")));
        assertThat(a.response().status()).isEqualTo(429);
        assertThat(a.response().headers()).extracting(Header::name).doesNotContain("RateLimit", "RateLimit-Policy");
        // another address has its own allowance
        assertThat(now(d.decide(RequestHead.of("POST", "/v1/login", null, "198.51.100.1"))))
                .isInstanceOf(Verdict.Forward.class);
    }

    @Test
    void theRefundListenerGivesBackAnUpstream503Once() {
        EdgeDecider d = decider(List.of());
        Verdict.Forward f = (Verdict.Forward) now(d.decide(get("/v1/x", "sk_free")));
        f.listeners().forEach(l -> l.onUpstreamResponse(503));
        assertThat(store.usage("sk_free", config.binding("sk_free").orElseThrow().plan()))
                .extracting(PolicyState::remaining).containsExactly(20L, 10_000L);
        Verdict.Forward g = (Verdict.Forward) now(d.decide(get("/v1/x", "sk_free")));
        g.listeners().forEach(l -> l.onUpstreamResponse(200));
        assertThat(store.usage("sk_free", config.binding("sk_free").orElseThrow().plan()))
                .extracting(PolicyState::remaining).containsExactly(19L, 9_999L);
    }

    @Test
    void aStageBeforeTheLimiterCanAnswerWithoutAnyCharge() {
        // the shedder's seam (SPEC §3.9): a shed request is answered 503 and charged nothing
        AtomicReference<EdgeRules> rules = new AtomicReference<>();
        EdgeStage shedder = (request, chain) -> CompletableFuture.completedFuture(new Verdict.Answer(
                rules.get().problems().overloaded(Duration.ofMillis(1_500), "Shed."),
                new DecisionRecord(request.route().id(), request.keyClass(), DecisionOutcome.SHED, false)));
        EdgeDecider d = decider(List.of(shedder));
        rules.set(d.rules());
        Verdict.Answer a = (Verdict.Answer) now(d.decide(get("/v1/x", "sk_free")));
        EdgeResponse r = a.response();
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("Retry-After")).hasValue("2");
        assertThat(r.header("Cache-Control")).hasValue("no-store");
        assertThat(store.keyCount()).isZero();
    }

    @Test
    void aStageAfterTheLimiterCanDecorateTheForward() {
        AtomicInteger seen = new AtomicInteger();
        EdgeStage recorder = (request, chain) -> chain.proceed(request).thenApply(v -> v instanceof Verdict.Forward f
                ? f.withListener(new ExchangeListener() {
                    @Override
                    public void onUpstreamResponse(int status) {
                        seen.set(status);
                    }
                }) : v);
        Verdict.Forward f = (Verdict.Forward) now(decider(List.of(recorder)).decide(get("/v1/x", "sk_free")));
        f.listeners().forEach(l -> l.onUpstreamResponse(201));
        assertThat(seen).hasValue(201);
        assertThat(f.listeners()).hasSize(2); // the limiter's refund hook and the stage's
    }

    @Test
    void aStoreThatAnswersLaterOnAnotherThreadIsWaitedForNotAssumed() {
        // SPEC §3.14: a Redis store completes the decision when its reply arrives
        CompletableFuture<Void> reply = new CompletableFuture<>();
        LimiterStore remote = new LimiterStore() {
            @Override
            public Decision decide(String key, Plan plan, Costs costs) {
                return store.decide(key, plan, costs);
            }

            @Override
            public List<PolicyState> usage(String key, Plan plan) {
                return store.usage(key, plan);
            }

            @Override
            public void refund(String key, Allowed charge) {
                store.refund(key, charge);
            }

            @Override
            public CompletionStage<Decision> decideAsync(String key, Plan plan, Costs costs) {
                return reply.thenApplyAsync(x -> store.decide(key, plan, costs));
            }
        };
        EdgeDecider d = new EdgeDecider(new EdgeRules(config), remote, time, List.of());
        CompletableFuture<Verdict> pending = d.decide(get("/v1/x", "sk_free")).toCompletableFuture();
        assertThat(pending).isNotDone();
        reply.complete(null);
        assertThat(pending.orTimeout(5, java.util.concurrent.TimeUnit.SECONDS).join())
                .isInstanceOf(Verdict.Forward.class);
    }

    @Test
    void aStoreThatCannotDecideIs503OverloadedAndChargesNothing() {
        // SPEC §3.14 fail-closed: the store answers Unavailable within its bound
        LimiterStore down = new LimiterStore() {
            @Override
            public Decision decide(String key, Plan plan, Costs costs) {
                return new dev.sluice.limiter.Unavailable(plan, Duration.ofMillis(1_200), "redis: timeout after 50 ms");
            }

            @Override
            public List<PolicyState> usage(String key, Plan plan) {
                throw new AssertionError("not called");
            }

            @Override
            public void refund(String key, Allowed charge) {
                throw new AssertionError("not called");
            }
        };
        Verdict.Answer a = (Verdict.Answer) now(new EdgeDecider(new EdgeRules(config), down, time, List.of())
                .decide(get("/v1/x", "sk_free")));
        assertThat(a.response().status()).isEqualTo(503);
        assertThat(a.response().header("Retry-After")).hasValue("2");
        assertThat(a.response().header("Cache-Control")).hasValue("no-store");
        assertThat(a.response().header("RateLimit-Policy")).hasValue("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
        assertThat(new String(a.response().body(), java.nio.charset.StandardCharsets.UTF_8))
                .contains("/errors/overloaded").doesNotContain("redis");
        assertThat(a.record().outcome()).isEqualTo(DecisionOutcome.UNAVAILABLE);
    }

    @Test
    void aSoftLimitCrossingProposesOneWarning() {
        Plan free = config.binding("sk_free").orElseThrow().plan();
        for (int i = 0; i < 399; i++) {
            store.decide("sk_free", free, Costs.requests(20));
            time.advance(Duration.ofSeconds(2));
        }
        store.decide("sk_free", free, Costs.requests(19)); // 7,999 used
        time.advance(Duration.ofSeconds(2));
        EdgeDecider d = decider(List.of());
        Verdict.Forward crossing = (Verdict.Forward) now(d.decide(get("/v1/x", "sk_free")));
        Verdict.Forward after = (Verdict.Forward) now(d.decide(get("/v1/x", "sk_free")));
        assertThat(crossing.warnings()).singleElement().satisfies(w -> assertThat(w.used()).isEqualTo(8_000));
        assertThat(after.warnings()).isEmpty();
        assertThat(header(after.responseHeaders(), "RateLimit-Warning")).isEqualTo("\"daily\";used=8001;q=10000");
    }
}
