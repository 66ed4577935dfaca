package dev.sluice.sim.scenario;

import dev.sluice.config.ConfigProblem;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A simulation to run (SPEC §7): a server, a fleet, how long, and the variants to compare. Read
 * from YAML by {@link ScenarioReader}; the built-in ones are in {@link BuiltInScenarios}.
 * Immutable.
 *
 * @param name short name ({@code jitter-blip})
 * @param description one paragraph for the report
 * @param source where it was read from (a file, or {@code built-in:NAME})
 * @param duration simulated time of each variant
 * @param seed the default seed (same seed, same output)
 * @param measureFrom start of the window headline figures are computed over
 * @param measureTo end of that window
 * @param variants what to run; at least one
 * @param grid when the variants form a grid (rows × columns), its shape and the figure to tabulate
 * @param warnings what the file should change but that did not stop it from being read (a deprecated
 *     snake_case key), sorted by line
 */
public record Scenario(
        String name,
        String description,
        String source,
        Duration duration,
        long seed,
        Duration measureFrom,
        Duration measureTo,
        List<Variant> variants,
        Grid grid,
        List<ConfigProblem> warnings) {

    public Scenario {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(duration, "duration");
        variants = List.copyOf(variants);
        warnings = List.copyOf(warnings);
        if (variants.isEmpty()) {
            throw new IllegalArgumentException("a scenario needs at least one variant");
        }
    }

    /**
     * One configuration to simulate.
     *
     * @param name label in tables, charts and files
     * @param server the server
     * @param fleet the fleet
     */
    public record Variant(String name, ServerSettings server, FleetSettings fleet) {
        public Variant {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(server, "server");
            Objects.requireNonNull(fleet, "fleet");
        }
    }

    /**
     * Variants laid out as rows × columns (row-major in {@link Scenario#variants()}); the terminal
     * and the report print {@code metric} as a table.
     *
     * @param rowLabel what the rows vary ({@code K})
     * @param columnLabel what the columns vary ({@code accept ratio})
     * @param rows row names
     * @param columns column names
     * @param metric the headline figure to tabulate ({@code drop_fraction})
     * @param expected the value each cell should have, row-major, or empty
     */
    public record Grid(String rowLabel, String columnLabel, List<String> rows, List<String> columns, String metric,
            List<Double> expected) {
        public Grid {
            rows = List.copyOf(rows);
            columns = List.copyOf(columns);
            expected = List.copyOf(expected);
        }
    }
}
