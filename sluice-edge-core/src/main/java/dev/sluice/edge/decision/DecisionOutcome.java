package dev.sluice.edge.decision;

import dev.sluice.limiter.headers.Rejection;

/**
 * How the edge's decision on one request came out: the {@code outcome} label of the decision counter
 * (SPEC §3.13). A closed, small set, so the label's cardinality is bounded.
 */
public enum DecisionOutcome {
    /** Every policy admitted the request (or an anonymous route's per-IP plan did). */
    ALLOWED("allowed"),
    /** A burst policy denied: 429 {@code rate_limited}. */
    RATE_LIMITED("rate_limited"),
    /** A quota policy denied: 429 {@code quota_exhausted}. */
    QUOTA_EXHAUSTED("quota_exhausted"),
    /** The cost can never fit: 400 {@code cost_exceeds_burst}. */
    COST_EXCEEDS_BURST("cost_exceeds_burst"),
    /** Dropped by the shedder (SPEC §3.9): 503 {@code overloaded}, not charged. Reserved for that stage. */
    SHED("shed"),
    /**
     * The limiter store could not decide (a shared store past its bounded time, failing closed; SPEC
     * §3.14): 503 {@code overloaded}, nothing charged.
     */
    UNAVAILABLE("unavailable"),
    /** A request whose client deadline had passed was dropped, not forwarded (SPEC §3.9): 503, not charged. */
    DEADLINE_EXCEEDED("deadline_exceeded"),
    /** A key caught in a retry loop answered by the escalation stage (SPEC §3.12): 429, not charged. */
    ESCALATED("escalated"),
    /** A recorded answer replayed for an {@code Idempotency-Key} (SPEC §3.11): not charged. */
    REPLAYED("replayed"),
    /** 409 for an {@code Idempotency-Key}: another request, or the first still in flight (SPEC §3.11). */
    IDEMPOTENCY_CONFLICT("idempotency_conflict"),
    /** No usable or no known API key: 401. */
    UNAUTHENTICATED("unauthenticated"),
    /** A request the edge cannot decide on (bad {@code Content-Length}, missing length): 4xx. */
    BAD_REQUEST("bad_request"),
    /** {@code GET /v1/usage}, answered by the edge and never charged. */
    USAGE("usage");

    private final String label;

    DecisionOutcome(String label) {
        this.label = label;
    }

    /**
     * The outcome of a limiter rejection ({@link Rejection}, the owner of its status and problem):
     * {@link #RATE_LIMITED}, {@link #QUOTA_EXHAUSTED}, {@link #COST_EXCEEDS_BURST}, or {@link #UNAVAILABLE} for
     * the store's 503 (the shedder's 503s are {@link #SHED} and {@link #DEADLINE_EXCEEDED}, set by the shedder).
     */
    public static DecisionOutcome of(Rejection rejection) {
        return switch (rejection) {
            case RATE_LIMITED -> RATE_LIMITED;
            case QUOTA_EXHAUSTED -> QUOTA_EXHAUSTED;
            case COST_EXCEEDS_BURST -> COST_EXCEEDS_BURST;
            case OVERLOADED -> UNAVAILABLE;
        };
    }

    /** The metrics label value: {@code allowed}, {@code rate_limited}, ... */
    public String label() {
        return label;
    }
}
