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
 * The shedder's per-key fair share (SPEC §3.9) on a fake clock: a key alone may fill its
 * criticality's ceiling; once another key is active, a key holding {@code ceil(ceiling / activeKeys)} is shed
 * in the upper half of the ceiling, so the other key keeps the rest; a key idle for the window stops counting.
 * Static limit 64, reserved 20 %: CRITICAL ceiling 57, fair share of two keys 29.
 */
class FairShareTest {

    private static final Plan PLAN = Plan.of("free", BurstPolicy.of("burst", 1_000_000, 1));

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");

    private CriticalityShedder shedder(Duration window) {
        return new CriticalityShedder(new SheddingConfig(SheddingConfig.Mode.STATIC, 64, 20, Duration.ofSeconds(1),
                20, 4, 64, window), time, () -> new Problems(ProblemConfig.DEFAULT));
    }

    private static Verdict offer(CriticalityShedder shedder, String key, List<ExchangeListener> held) {
        Route route = Route.of("POST", "/v1/labels:batch").withCriticality(Criticality.CRITICAL);
        EdgeRequest request = new EdgeRequest(RequestHead.of("POST", "/v1/labels:batch", "Bearer " + key,
                "127.0.0.1"), route, new Caller.ApiKey(new KeyBinding(key, PLAN, 1)), Costs.ONE);
        Verdict v = shedder.apply(request, r -> CompletableFuture.completedFuture(new Verdict.Forward(r, List.of(),
                Optional.empty(), new DecisionRecord(r.route().id(), "free", DecisionOutcome.ALLOWED, false),
                List.of(), List.of()))).toCompletableFuture().join();
        if (v instanceof Verdict.Forward f) {
            held.addAll(f.listeners());
        }
        return v;
    }

    private static int admitted(CriticalityShedder shedder, String key, int offered, List<ExchangeListener> held) {
        int n = 0;
        for (int i = 0; i < offered; i++) {
            if (offer(shedder, key, held) instanceof Verdict.Forward) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aKeyAloneMayFillTheWholeCriticalCeiling() {
        CriticalityShedder shedder = shedder(Duration.ofSeconds(5));
        List<ExchangeListener> held = new ArrayList<>();

        assertThat(admitted(shedder, "sk_heavy", 100, held)).isEqualTo(57);
        held.forEach(l -> l.onEnd(true));
        assertThat(shedder.inFlight()).isZero();
    }

    @Test
    void withASecondActiveKeyTheFirstIsShedAtItsFairShareAndTheSecondKeepsTheRest() {
        CriticalityShedder shedder = shedder(Duration.ofSeconds(5));
        List<ExchangeListener> held = new ArrayList<>();
        List<ExchangeListener> other = new ArrayList<>();
        assertThat(offer(shedder, "sk_other", other)).isInstanceOf(Verdict.Forward.class); // active
        other.forEach(l -> l.onEnd(true));
        other.clear();

        assertThat(admitted(shedder, "sk_heavy", 100, held)).isEqualTo(29); // ceil(57 / 2)
        Verdict shed = offer(shedder, "sk_heavy", held);
        assertThat(shed).isInstanceOf(Verdict.Answer.class);
        assertThat(((Verdict.Answer) shed).response().status()).isEqualTo(503);
        assertThat(((Verdict.Answer) shed).record().outcome()).isEqualTo(DecisionOutcome.SHED);
        assertThat(admitted(shedder, "sk_other", 100, other)).isEqualTo(28); // 57 - 29
        held.forEach(l -> l.onEnd(true));
        other.forEach(l -> l.onEnd(true));
        assertThat(shedder.inFlight()).isZero();
    }

    @Test
    void aKeyIdleForTheWindowNoLongerCountsAndOffTurnsTheShareOff() {
        CriticalityShedder shedder = shedder(Duration.ofSeconds(5));
        List<ExchangeListener> held = new ArrayList<>();
        offer(shedder, "sk_other", held);
        held.forEach(l -> l.onEnd(true));
        held.clear();
        time.advance(Duration.ofSeconds(6));
        offer(shedder, "sk_heavy", held); // sweeps the idle key
        assertThat(shedder.activeKeys()).isEqualTo(1);
        assertThat(admitted(shedder, "sk_heavy", 100, held)).isEqualTo(56); // 57 with the first
        held.forEach(l -> l.onEnd(true));

        CriticalityShedder off = shedder(Duration.ZERO);
        List<ExchangeListener> offHeld = new ArrayList<>();
        offer(off, "sk_other", offHeld);
        assertThat(admitted(off, "sk_heavy", 100, offHeld)).isEqualTo(56);
        offHeld.forEach(l -> l.onEnd(true));
    }
}
