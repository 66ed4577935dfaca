package dev.sluice.limiter;

import java.util.List;
import java.util.Objects;

/**
 * Every policy admitted the request and was charged its cost (SPEC §3.3). Keep it to
 * {@link dev.sluice.limiter.spi.LimiterStore#refund refund} the charge if the upstream answers 503
 * (SPEC §3.9), and, when the plan has a {@link ConcurrencyPolicy}, to
 * {@link dev.sluice.limiter.spi.LimiterStore#release release} the slots it holds once the request
 * has ended.
 *
 * @param plan the plan
 * @param costs what was charged
 * @param states each policy's standing <em>after</em> the charge, in plan order: the {@code RateLimit}
 *     members of the response
 * @param lease identifies the concurrency slots this admission holds, for a store that must tell them
 *     apart to release the right one or expire a lost one (a shared store keeps one entry per admitted
 *     request); {@code ""} when the store needs none (the in-memory store counts) or the plan has no
 *     concurrency policy
 */
public record Allowed(Plan plan, Costs costs, List<PolicyState> states, String lease) implements Decision {

    public Allowed {
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(costs, "costs");
        states = List.copyOf(states);
        Objects.requireNonNull(lease, "lease");
    }

    /** An admission without a lease (no concurrency slots, or a store that counts them). */
    public Allowed(Plan plan, Costs costs, List<PolicyState> states) {
        this(plan, costs, states, "");
    }
}
