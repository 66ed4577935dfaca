package dev.sluice.examples.demo.fleet;

import java.util.Objects;

/**
 * One virtual client: an instance of a customer's application holding one API key.
 *
 * @param id 0-based index in the fleet
 * @param apiKey the bearer key it sends (several clients may share one, as a customer's several
 *     instances do)
 * @param plan the plan of that key, for the report
 * @param callsPerSecond the mean rate at which its users make calls (Poisson arrivals)
 */
public record ClientSpec(int id, String apiKey, String plan, double callsPerSecond) {

    public ClientSpec {
        Objects.requireNonNull(apiKey, "apiKey");
        Objects.requireNonNull(plan, "plan");
        if (!(callsPerSecond > 0) || Double.isInfinite(callsPerSecond)) {
            throw new IllegalArgumentException("callsPerSecond must be > 0: " + callsPerSecond);
        }
    }
}
