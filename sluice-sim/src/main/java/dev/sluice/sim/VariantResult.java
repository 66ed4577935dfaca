package dev.sluice.sim;

import dev.sluice.sim.scenario.Scenario;
import java.util.List;

/**
 * One variant's run: its per-second series and headline figures.
 *
 * @param variant what ran
 * @param rows one row per simulated second, in order
 * @param headline figures over the scenario's measure window
 */
public record VariantResult(Scenario.Variant variant, List<SecondRow> rows, Headline headline) {

    public VariantResult {
        rows = List.copyOf(rows);
    }

    /** The row of {@code second}. */
    public SecondRow second(int second) {
        return rows.get(second);
    }
}
