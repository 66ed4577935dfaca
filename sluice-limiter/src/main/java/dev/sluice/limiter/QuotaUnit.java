package dev.sluice.limiter;

import java.util.Optional;

/**
 * What one unit of a policy's quota counts: the {@code qu} parameter of {@code RateLimit-Policy}
 * (draft-ietf-httpapi-ratelimit-headers-11; SPEC §1, §2.1).
 */
public enum QuotaUnit {
    /** One unit per request, times the route's cost (SPEC §3.10). The default. */
    REQUESTS("requests"),
    /** One unit per byte of request content: a request costs its {@code Content-Length}. */
    CONTENT_BYTES("content-bytes"),
    /**
     * Requests in flight at once: the unit of a {@link ConcurrencyPolicy} only (burst and quota
     * policies do not count in this unit, so {@link BurstPolicy} and {@link QuotaPolicy} reject it).
     */
    CONCURRENT_REQUESTS("concurrent-requests");

    private final String wireName;

    QuotaUnit(String wireName) {
        this.wireName = wireName;
    }

    /** The token used on the wire and in configuration: {@code requests}, {@code content-bytes}, ... */
    public String wireName() {
        return wireName;
    }

    /** The unit whose {@link #wireName()} is {@code name} (exact, lower case), if any. */
    public static Optional<QuotaUnit> fromWireName(String name) {
        for (QuotaUnit unit : values()) {
            if (unit.wireName.equals(name)) {
                return Optional.of(unit);
            }
        }
        return Optional.empty();
    }
}
