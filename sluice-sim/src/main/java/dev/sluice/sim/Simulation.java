package dev.sluice.sim;

import dev.sluice.sim.engine.World;
import dev.sluice.sim.scenario.FleetSettings;
import dev.sluice.sim.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link Scenario} (SPEC §7): each variant is a deterministic discrete-event simulation of a
 * fleet of SDK instances — the real {@code sluice-client} decision core, one per client — against
 * an edge running the real {@code sluice-limiter} store, all on one simulated clock. Nothing sleeps
 * and nothing reads the machine's clock, so 600 simulated seconds take as long as the events they
 * hold, and the same seed gives the same result.
 *
 * <pre>{@code
 * SimulationResult r = Simulation.run(BuiltInScenarios.load("jitter-blip"));
 * long retriesInSecondFive = r.variant("no jitter").second(5).requests();   // 10,000
 * }</pre>
 *
 * <p>Thread-safe: each run builds its own world; variants run one after another.
 */
public final class Simulation {

    /** Told as simulated seconds close, for a progress line. */
    @FunctionalInterface
    public interface Progress {
        /**
         * @param variant index of the running variant (0-based)
         * @param variants how many variants the scenario has
         * @param second the simulated second just closed (0-based)
         * @param seconds the seconds each variant runs
         */
        void onSecond(int variant, int variants, int second, int seconds);
    }

    /** Wall time per simulated call on the 2-core build machine (README "Speed and memory"), for estimates. */
    public static final double SECONDS_PER_CALL = 20e-6;

    private Simulation() {
    }

    /**
     * How many calls {@code scenario} will open, summed over its variants, from the arrival
     * settings alone (before running): clients × rate × the arrival window for constant and
     * Poisson arrivals (exact for constant, the expectation for Poisson), clients × burst size ×
     * bursts for bursts. Retries are not calls; the wall time of a run grows with the calls (about
     * {@link #SECONDS_PER_CALL} each), which is what a caller bounds with this.
     *
     * @return the estimate, saturating at {@link Long#MAX_VALUE}
     */
    public static long estimatedCalls(Scenario scenario) {
        double total = 0;
        double seconds = scenario.duration().toNanos() / 1e9;
        for (Scenario.Variant v : scenario.variants()) {
            FleetSettings.Arrivals a = v.fleet().arrivals();
            double from = a.from().toNanos() / 1e9;
            double stop = a.to() == null ? seconds : Math.min(seconds, a.to().toNanos() / 1e9);
            double span = Math.max(0, stop - from);
            double perClient = switch (a.process()) {
                case CONSTANT, POISSON -> a.ratePerClient() * span;
                case BURST -> span <= 0 ? 0
                        : a.size() * (a.every() == null ? 1 : Math.ceil(span / (a.every().toNanos() / 1e9)));
            };
            total += (double) v.fleet().clients() * perClient;
        }
        return total >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.round(total);
    }

    /** Runs {@code scenario} with its own seed. */
    public static SimulationResult run(Scenario scenario) {
        return run(scenario, scenario.seed(), null);
    }

    /**
     * Runs {@code scenario} with {@code seed}. Every variant uses the same seed, so they see the same
     * random draws where their settings agree (common random numbers: differences between variants
     * are the settings', not the dice's).
     *
     * @param progress may be {@code null}
     */
    public static SimulationResult run(Scenario scenario, long seed, Progress progress) {
        List<VariantResult> results = new ArrayList<>();
        int n = scenario.variants().size();
        int seconds = (int) Math.ceil(scenario.duration().toNanos() / 1e9);
        for (int i = 0; i < n; i++) {
            Scenario.Variant v = scenario.variants().get(i);
            int index = i;
            World world = new World(scenario, v, seed,
                    progress == null ? null : s -> progress.onSecond(index, n, s, seconds));
            World.Result r = world.run();
            results.add(new VariantResult(v, r.rows(), r.headline()));
        }
        return new SimulationResult(scenario, seed, results);
    }
}
