package dev.sluice.limiter;

/**
 * What one request costs, per quota unit (SPEC §1 "cost", §3.10): a policy counting
 * {@link QuotaUnit#REQUESTS} is charged the route's cost, a policy counting
 * {@link QuotaUnit#CONTENT_BYTES} the request's {@code Content-Length}, a
 * {@link QuotaUnit#CONCURRENT_REQUESTS} policy one unit (the request occupies one slot while in
 * flight, whatever its cost).
 *
 * @param requests the route cost in requests (default 1), ≥ 0
 * @param contentBytes the request's {@code Content-Length} in bytes, ≥ 0 (0 when it has no body)
 */
public record Costs(long requests, long contentBytes) {

    /** One request without a body: the default cost. */
    public static final Costs ONE = new Costs(1, 0);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when a cost is negative
     */
    public Costs {
        if (requests < 0) {
            throw new IllegalArgumentException("requests: cost must be >= 0, was " + requests);
        }
        if (contentBytes < 0) {
            throw new IllegalArgumentException("contentBytes: must be >= 0, was " + contentBytes);
        }
    }

    /** A request costing {@code requests} units, without a body. */
    public static Costs requests(long requests) {
        return requests == 1 ? ONE : new Costs(requests, 0);
    }

    /** The units this request charges {@code policy}. */
    public long costFor(Policy policy) {
        return switch (policy.unit()) {
            case REQUESTS -> requests;
            case CONTENT_BYTES -> contentBytes;
            case CONCURRENT_REQUESTS -> 1;
        };
    }
}
