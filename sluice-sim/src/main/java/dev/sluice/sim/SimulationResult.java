package dev.sluice.sim;

import dev.sluice.sim.scenario.Scenario;
import java.util.List;

/**
 * A whole scenario's run: one {@link VariantResult} per variant, in the scenario's order.
 *
 * @param scenario what ran
 * @param seed the seed used (the same seed gives the same result, byte for byte in every output)
 * @param variants the results
 */
public record SimulationResult(Scenario scenario, long seed, List<VariantResult> variants) {

    public SimulationResult {
        variants = List.copyOf(variants);
    }

    /**
     * The result of the variant named {@code name}.
     *
     * @throws IllegalArgumentException when there is none
     */
    public VariantResult variant(String name) {
        return variants.stream().filter(v -> v.variant().name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no variant named " + name));
    }
}
