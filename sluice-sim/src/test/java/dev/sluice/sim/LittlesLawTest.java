package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.client.LittlesLaw;
import dev.sluice.sim.scenario.BuiltInScenarios;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SPEC §5.1 / §7.2: L = λ · W. A provider that completes 20 calls/s (4 concurrent × 200 ms) is
 * offered 25 calls/s (Poisson). Tolerances: the drained rate is fixed by the provider, so
 * throughput is 20/s to within the calls in flight at the window's edges; the queue is full almost
 * always at 25 % overload, so its time-average sits a few percent under its depth.
 */
class LittlesLawTest {

    private static SimulationResult result;

    @BeforeAll
    static void run() {
        result = Simulation.run(BuiltInScenarios.load("littles-law"));
    }

    @Test
    void twentyPerSecondTimesFiveSecondsIsAQueueOfOneHundred() {
        assertThat(LittlesLaw.queueLength(20, Duration.ofSeconds(5))).isEqualTo(100); // SPEC §5.1

        Headline h = result.variant("queue 100").headline();
        assertThat(h.get("useful_throughput_per_s")).isCloseTo(20.0, within(0.2));
        assertThat(h.get("waiting_mean")).isBetween(95.0, 100.0);
        assertThat(h.get("wait_mean_ms")).isCloseTo(5_000.0, within(250.0));
    }

    @Test
    void theSimulatedQueueObeysLittlesLaw() {
        for (VariantResult v : result.variants()) {
            Headline h = v.headline();
            double lambdaW = h.get("wait_entries_per_s") * h.get("wait_mean_ms") / 1000;
            assertThat(h.get("waiting_mean")).as(v.variant().name()).isCloseTo(lambdaW, within(0.02 * lambdaW));
        }
    }

    @Test
    void aDeeperQueueAddsLatencyNotThroughput() {
        Headline q25 = result.variant("queue 25").headline();
        Headline q100 = result.variant("queue 100").headline();
        Headline q400 = result.variant("queue 400").headline();

        assertThat(q400.get("useful_throughput_per_s")).isCloseTo(q100.get("useful_throughput_per_s"), within(0.2));
        assertThat(q25.get("useful_throughput_per_s")).isCloseTo(q100.get("useful_throughput_per_s"), within(0.2));
        // latency ≈ depth / 20 per s + 200 ms of service
        assertThat(q25.get("latency_mean_ms")).isCloseTo(1_450.0, within(150.0));
        assertThat(q100.get("latency_mean_ms")).isCloseTo(5_200.0, within(300.0));
        assertThat(q400.get("latency_mean_ms")).isCloseTo(20_200.0, within(1_000.0));
    }
}
