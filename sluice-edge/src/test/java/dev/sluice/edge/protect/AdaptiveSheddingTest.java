package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.sluice.edge.shedding.SheddingConfig;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.config.KeyBinding;
import dev.sluice.time.ManualTimeSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * SPEC §3.9, {@code shedding.mode: adaptive}: the shedder's limit is Netflix concurrency-limits'
 * {@code Gradient2Limit}, fed with each forwarded request's time from admission to the upstream's response
 * head, read from the edge's clock. On a fake clock, rounds of requests fill the limit and all answer
 * after the upstream's latency; when that latency rises tenfold (queueing in the upstream), the limit falls,
 * and the ceilings of every criticality fall with it.
 */
class AdaptiveSheddingTest {

    private static final Plan PLAN = Plan.of("free", BurstPolicy.of("burst", 1_000_000, 1));

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final CriticalityShedder shedder = new CriticalityShedder(
            new SheddingConfig(SheddingConfig.Mode.ADAPTIVE, 64, 20, Duration.ofSeconds(1), 20, 4, 64), time,
            () -> new Problems(ProblemConfig.DEFAULT));

    private static EdgeRequest request(Criticality criticality) {
        Route route = Route.of("GET", "/v1/quotes").withCriticality(criticality);
        return new EdgeRequest(RequestHead.of("GET", "/v1/quotes", "Bearer sk_1", "127.0.0.1"), route,
                new Caller.ApiKey(new KeyBinding("sk_1", PLAN, 1)), Costs.ONE);
    }

    private Verdict offer(Criticality criticality) {
        return shedder.apply(request(criticality), r -> CompletableFuture.completedFuture(new Verdict.Forward(r,
                List.of(), Optional.empty(), new DecisionRecord(r.route().id(), "free", DecisionOutcome.ALLOWED, false),
                List.of(), List.of()))).toCompletableFuture().join();
    }

    /** Fills the current limit with CRITICAL_PLUS requests, lets {@code rtt} pass, and answers them all 200. */
    private void round(Duration rtt) {
        List<ExchangeListener> inFlight = new ArrayList<>();
        int n = shedder.limit();
        for (int i = 0; i < n; i++) {
            Verdict v = offer(Criticality.CRITICAL_PLUS);
            assertThat(v).isInstanceOf(Verdict.Forward.class);
            inFlight.addAll(((Verdict.Forward) v).listeners());
        }
        time.advance(rtt);
        for (ExchangeListener l : inFlight) {
            l.onUpstreamResponse(200);
            l.onEnd(true);
        }
        assertThat(shedder.inFlight()).isZero();
    }

    @Test
    void theLimitFallsWhenTheUpstreamSlowsDownAndShedsEarlier() {
        assertThat(shedder.limit()).isEqualTo(20); // initial-limit
        for (int i = 0; i < 50; i++) {
            round(Duration.ofMillis(10)); // a healthy upstream: 10 ms
        }
        int healthy = shedder.limit(); // the gradient is 1 while latency holds: the limit grows (to max-limit)
        int critical = CriticalityShedder.ceiling(Criticality.CRITICAL, healthy, 20);

        for (int i = 0; i < 10; i++) {
            round(Duration.ofMillis(100)); // the upstream queues: 100 ms
        }
        int slowed = shedder.limit();
        System.out.printf("adaptive shedding: limit 20 at start, %d after 50 rounds at 10 ms, %d after 10 rounds at"
                + " 100 ms%n", healthy, slowed);

        assertThat(slowed).isLessThan(healthy).isLessThan(20).isGreaterThanOrEqualTo(4); // min-limit
        // the lower limit sheds sooner: CRITICAL requests the healthy limit admitted are now refused
        List<ExchangeListener> held = new ArrayList<>();
        int before = 0;
        while (before < critical && offer(Criticality.CRITICAL) instanceof Verdict.Forward f) {
            held.addAll(f.listeners());
            before++;
        }
        assertThat(before).isEqualTo(CriticalityShedder.ceiling(Criticality.CRITICAL, slowed, 20))
                .isLessThan(critical);
        held.forEach(l -> l.onEnd(true));
    }
}
