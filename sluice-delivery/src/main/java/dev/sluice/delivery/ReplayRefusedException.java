package dev.sluice.delivery;

/**
 * A replay (SPEC §6.6) or review resolution that was refused, with the reason; nothing changed.
 */
public final class ReplayRefusedException extends DeliveryException {

    /** Why the replay was refused. */
    public enum Reason {
        /** The key was delivered since (a replay of it could only act twice). */
        ALREADY_DELIVERED,
        /** The key is pending or in flight again already (an earlier replay). */
        ALREADY_QUEUED,
        /** The key waits in review; resolve it instead. */
        IN_REVIEW,
        /** The item is not in the state the operation needs (e.g. resolving a row that is not in review). */
        WRONG_STATE,
        /** The destination is disabled (after a 410); enable it first. */
        DESTINATION_DISABLED
    }

    private final Reason reason;

    public ReplayRefusedException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
