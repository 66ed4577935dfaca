package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.config.ProblemConfig;
import dev.sluice.edge.decision.Caller;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.ExchangeListener;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.response.Problems;
import dev.sluice.edge.route.Criticality;
import dev.sluice.edge.route.Route;
import dev.sluice.edge.shedding.CriticalityShedder;
import dev.sluice.edge.testing.Captures;
import dev.sluice.limiter.Costs;
import dev.sluice.time.ManualTimeSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * "A config test proves a route labelled critical is shed last" (SPEC §3.9). The shipped
 * {@code examples/shiplane.yaml} is loaded and its own shedder (the default: static, limit = the
 * upstream pool of 64, 20 % reserved) is offered one request of each route per step while nothing ends,
 * so in-flight rises; the step at which each route is first shed gives the order.
 */
class CriticalShedLastConfigTest {

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");

    @Test
    void theShippedShiplaneConfigShedsQuotesFirstAndLabelsOnlyAfterThem() {
        EdgeConfig config = EdgeConfig.load(Captures.repoRoot().resolve("examples/shiplane.yaml"));
        Route labels = config.routes().match("POST", "/v1/labels");
        Route quotes = config.routes().match("GET", "/v1/quotes");
        Route login = config.routes().match("POST", "/v1/login");
        assertThat(labels.criticality()).isEqualTo(Criticality.CRITICAL);
        assertThat(quotes.criticality()).isEqualTo(Criticality.SHEDDABLE);
        assertThat(login.criticality()).isEqualTo(Criticality.CRITICAL_PLUS);

        Map<String, Integer> firstShedAt = firstShedInFlight(config, List.of(quotes, labels, login));

        // the order in which routes were first shed: sheddable quotes first, the critical label purchase after
        // them, the CRITICAL_PLUS login last
        assertThat(firstShedAt.keySet()).containsExactly("GET /v1/quotes", "POST /v1/labels", "POST /v1/login");
        // and where: SHEDDABLE from 64 · (1 − 3 · 20 % / 2) = 44 in flight, CRITICAL from 64 · (1 − 20 % / 2) = 57,
        // CRITICAL_PLUS at the limit, 64 (within one step of three offers)
        assertThat(firstShedAt.get("GET /v1/quotes")).isBetween(44, 46);
        assertThat(firstShedAt.get("POST /v1/labels")).isBetween(57, 59);
        assertThat(firstShedAt.get("POST /v1/login")).isEqualTo(64);
    }

    @Test
    void itIsTheLabelThatDecidesNotThePath() {
        EdgeConfig shipped = EdgeConfig.load(Captures.repoRoot().resolve("examples/shiplane.yaml"));
        // the same file with the two labels swapped: now quotes are critical and labels sheddable
        EdgeConfig swapped = EdgeConfig.parse("swapped.yaml", """
                plans:
                  free:
                    policies:
                      - { name: burst, kind: burst, q: 20, w: 2 }
                keys: { sk_test_free_1: free }
                routes:
                  - { method: POST, path: /v1/labels, criticality: SHEDDABLE }
                  - { method: GET, path: /v1/quotes, criticality: CRITICAL }
                """).withUpstream(shipped.upstream());

        Map<String, Integer> firstShedAt = firstShedInFlight(swapped,
                List.of(swapped.routes().match("GET", "/v1/quotes"), swapped.routes().match("POST", "/v1/labels")));

        assertThat(firstShedAt.keySet()).containsExactly("POST /v1/labels", "GET /v1/quotes");
        assertThat(firstShedAt.get("POST /v1/labels")).isBetween(44, 45);
        assertThat(firstShedAt.get("GET /v1/quotes")).isBetween(57, 58);
    }

    /**
     * Offers one request of each route per step, none ending, until every route was shed once; returns, per
     * route id, the shedder's in-flight count when that route was first shed. Asserts on the way that a shed
     * route keeps being shed and that the routes not yet shed are all still admitted.
     */
    private Map<String, Integer> firstShedInFlight(EdgeConfig config, List<Route> routes) {
        CriticalityShedder shedder = new CriticalityShedder(config.protection().sheddingFor(config.upstream().poolSize()),
                time, () -> new Problems(ProblemConfig.DEFAULT));
        Caller key = new Caller.ApiKey(config.binding("sk_test_free_1").orElseThrow());
        Map<String, Integer> firstShed = new LinkedHashMap<>();
        List<ExchangeListener> held = new ArrayList<>();
        for (int step = 0; firstShed.size() < routes.size(); step++) {
            assertThat(step).as("steps").isLessThan(1000);
            for (Route route : routes) {
                int before = shedder.inFlight();
                Verdict v = shedder.apply(request(route, key), r -> CompletableFuture.completedFuture(
                        new Verdict.Forward(r, List.of(), Optional.empty(), new DecisionRecord(route.id(), "free",
                                DecisionOutcome.ALLOWED, false), List.of(), List.of()))).toCompletableFuture().join();
                switch (v) {
                    case Verdict.Forward f -> {
                        assertThat(firstShed).as("%s admitted after it was shed", route.id())
                                .doesNotContainKey(route.id());
                        held.addAll(f.listeners());
                    }
                    case Verdict.Answer a -> {
                        assertThat(a.response().status()).isEqualTo(503);
                        assertThat(a.record().outcome()).isEqualTo(DecisionOutcome.SHED);
                        firstShed.putIfAbsent(route.id(), before);
                    }
                    case Verdict.Replay r -> throw new AssertionError("no replay here");
                }
            }
        }
        held.forEach(l -> l.onEnd(true));
        assertThat(shedder.inFlight()).isZero(); // every slot came back
        return firstShed;
    }

    private static EdgeRequest request(Route route, Caller key) {
        String[] id = route.id().split(" ");
        return new EdgeRequest(RequestHead.of(id[0], id[1], "Bearer sk_test_free_1", "127.0.0.1"), route, key,
                Costs.ONE);
    }
}
