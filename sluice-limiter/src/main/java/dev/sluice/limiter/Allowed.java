package dev.sluice.limiter;

import java.util.List;
import java.util.Objects;

/**
 * Every policy admitted the request and was charged its cost (SPEC §3.3). Keep it to
 * {@link dev.sluice.limiter.spi.LimiterStore#refund refund} the charge if the upstream answers 503
 * (SPEC §3.9).
 *
 * @param plan the plan
 * @param costs what was charged
 * @param states each policy's standing <em>after</em> the charge, in plan order: the {@code RateLimit}
 *     members of the response
 */
public record Allowed(Plan plan, Costs costs, List<PolicyState> states) implements Decision {

    public Allowed {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(costs, "costs");
        states = List.copyOf(states);
    }
}
