package dev.sluice.client;

import java.util.Optional;

/**
 * The failures a caller may answer with a degraded result instead of an error (a cached answer, a
 * smaller model, a partial result): "degrade rather than fail". Other failures (client bugs,
 * budget, transport) are not degradable and always propagate.
 */
public enum FallbackReason {
    /** The admission queue shed the call (§5.2). */
    SHED("shed"),
    /** The adaptive throttle dropped it (§4.5). */
    LOCALLY_THROTTLED("locally_throttled"),
    /** A quota is spent (§4.2). */
    QUOTA_EXCEEDED("quota_exceeded"),
    /** The server is overloaded (§3.9). */
    OVERLOADED("overloaded");

    private final String wireName;

    FallbackReason(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    /** The reason {@code failure} may be degraded, or empty when it may not. */
    public static Optional<FallbackReason> of(SluiceException failure) {
        return Optional.ofNullable(switch (failure) {
            case ShedException s -> SHED;
            case LocallyThrottledException l -> LOCALLY_THROTTLED;
            case QuotaExceededException q -> QUOTA_EXCEEDED;
            case OverloadedException o -> OVERLOADED;
            default -> null;
        });
    }
}
