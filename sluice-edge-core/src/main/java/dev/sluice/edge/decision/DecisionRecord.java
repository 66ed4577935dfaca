package dev.sluice.edge.decision;

import java.util.Objects;

/**
 * What is counted about one decision (SPEC §3.13): the route, the key class (the plan's name; never
 * the key itself, to keep label cardinality bounded), the outcome, and whether the route is in
 * dry-run (a denial that was only counted, SPEC §3.13a).
 *
 * @param route the route id ({@code POST /v1/labels})
 * @param keyClass the plan name, {@code anonymous} for anonymous routes, {@code none} when
 *     unauthenticated
 * @param outcome the outcome
 * @param dryRun whether the route is in dry-run
 */
public record DecisionRecord(String route, String keyClass, DecisionOutcome outcome, boolean dryRun) {

    /** {@link #keyClass()} of a request without a usable key. */
    public static final String NO_KEY = "none";

    public DecisionRecord {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(keyClass, "keyClass");
        Objects.requireNonNull(outcome, "outcome");
    }
}
