package dev.sluice.edge.decision;

import java.util.Objects;

/**
 * What is counted about one decision (SPEC §3.13): the route, the key class (the plan's name; never
 * the key itself, to keep label cardinality bounded), the outcome, whether the route is in
 * dry-run (a denial that was only counted, SPEC §3.13a), and, for a request of an API key that the edge
 * refused, the key's id.
 *
 * @param route the route id ({@code POST /v1/labels})
 * @param keyClass the plan name, {@code anonymous} for anonymous routes, {@code none} when
 *     unauthenticated
 * @param outcome the outcome
 * @param dryRun whether the route is in dry-run
 * @param keyId the refused key's id ({@link KeyIds}, never the key) when an API key's request was refused
 *     (429, 503, 400); {@link #NO_KEY_ID} for admitted and dry-run requests, anonymous callers and requests
 *     without a known key. Read by the admin dashboard's top keys; never a metrics label.
 */
public record DecisionRecord(String route, String keyClass, DecisionOutcome outcome, boolean dryRun, String keyId) {

    /** {@link #keyClass()} of a request without a usable key. */
    public static final String NO_KEY = "none";

    /** {@link #keyId()} of a decision not attributed to a key. */
    public static final String NO_KEY_ID = "";

    public DecisionRecord {
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(keyClass, "keyClass");
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(keyId, "keyId");
    }

    /** A decision not attributed to a key ({@link #NO_KEY_ID}). */
    public DecisionRecord(String route, String keyClass, DecisionOutcome outcome, boolean dryRun) {
        this(route, keyClass, outcome, dryRun, NO_KEY_ID);
    }

    /**
     * The refusal of {@code request}: its route and plan, {@code outcome}, not dry-run, and its key's id
     * when the caller is an API key.
     */
    public static DecisionRecord refused(EdgeRequest request, DecisionOutcome outcome) {
        return new DecisionRecord(request.route().id(), request.keyClass(), outcome, false,
                request.caller() instanceof Caller.ApiKey key ? key.keyId() : NO_KEY_ID);
    }

    /** This record without its key id: the metrics series it counts into. */
    public DecisionRecord withoutKeyId() {
        return keyId.isEmpty() ? this : new DecisionRecord(route, keyClass, outcome, dryRun);
    }
}
