package dev.sluice.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.sim.scenario.BuiltInScenarios;
import dev.sluice.sim.scenario.Scenario;
import org.junit.jupiter.api.Test;

/**
 * SPEC §4.5 / §7.2: the adaptive-throttle table emerges from simulated counts of the real SDK core.
 *
 * <p>Tolerance 0.03. Each client decides from its own 2-minute window of about 600 requests, so its
 * accept ratio carries a sampling sd of about sqrt(0.25 / 600) ≈ 0.02, and K times that in the drop
 * probability; where the formula is clipped at 0 (K · ratio = 1) that noise leaves a bias of
 * sd / sqrt(2π) ≈ 0.016. The measured fraction itself averages 9,000 calls (sd ≤ 0.005). The table
 * is given to two decimals.
 */
class AdaptiveThrottleTest {

    /** SPEC §4.5, rows K = 2 and K = 1.1, columns accept ratio 0, 0.1, ..., 1. */
    private static final double[][] TABLE = {
        {1, 0.8, 0.6, 0.4, 0.2, 0, 0, 0, 0, 0, 0},
        {1, 0.89, 0.78, 0.67, 0.56, 0.45, 0.34, 0.23, 0.12, 0.01, 0},
    };

    @Test
    void theDropTableForKTwoAndOnePointOneEmergesFromSimulatedCounts() {
        Scenario s = BuiltInScenarios.load("adaptive-throttle");
        assertThat(s.grid().rows()).containsExactly("2", "1.1");
        assertThat(s.grid().columns()).hasSize(11);

        SimulationResult r = Simulation.run(s);

        for (int row = 0; row < 2; row++) {
            for (int col = 0; col < 11; col++) {
                VariantResult v = r.variants().get(row * 11 + col);
                assertThat(v.headline().get("drop_fraction")).as(v.variant().name())
                        .isCloseTo(TABLE[row][col], within(0.03));
            }
        }
    }
}
