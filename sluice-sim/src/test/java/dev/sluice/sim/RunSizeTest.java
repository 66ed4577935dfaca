package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.sim.scenario.BuiltInScenarios;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioReader;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/** The run-size estimate a caller bounds a run with: it must match the calls a run really opens. */
class RunSizeTest {

    private static long actualCalls(SimulationResult r) {
        return r.variants().stream().flatMap(v -> v.rows().stream()).mapToLong(SecondRow::calls).sum();
    }

    @Test
    void constantAndBurstArrivalsAreEstimatedExactly() {
        // retry-amplification: 200 clients × 1 call/s × 180 s × 2 variants
        Scenario amplification = BuiltInScenarios.load("retry-amplification");
        assertThat(Simulation.estimatedCalls(amplification)).isEqualTo(72_000);
        assertThat(actualCalls(Simulation.run(amplification))).isEqualTo(72_000);
        // jitter-blip: 10,000 clients × one burst of 1 × 2 variants
        Scenario blip = BuiltInScenarios.load("jitter-blip");
        assertThat(Simulation.estimatedCalls(blip)).isEqualTo(20_000);
        assertThat(actualCalls(Simulation.run(blip))).isEqualTo(20_000);
    }

    @Test
    void poissonArrivalsAreEstimatedByTheirExpectation() {
        Scenario s = ScenarioReader.read("p.yaml", new StringReader("""
                name: p
                duration: 60s
                fleet: { clients: 500, arrivals: { process: poisson, rate: 0.5, from: 10s } }
                """));
        // 500 × 0.5/s × 50 s = 12,500; a Poisson count of that mean has sd 112
        assertThat(Simulation.estimatedCalls(s)).isEqualTo(12_500);
        assertThat((double) actualCalls(Simulation.run(s))).isCloseTo(12_500, within(5 * 112.0));
    }

    @Test
    void repeatedBurstsCountEveryBurstBeforeTheEnd() {
        Scenario s = ScenarioReader.read("b.yaml", new StringReader("""
                name: b
                duration: 10s
                fleet: { clients: 3, arrivals: { process: burst, size: 4, every: 3s } }
                """));
        // bursts at 0, 3, 6 and 9 s: 3 clients × 4 calls × 4 bursts
        assertThat(Simulation.estimatedCalls(s)).isEqualTo(48);
        assertThat(actualCalls(Simulation.run(s))).isEqualTo(48);
    }
}
