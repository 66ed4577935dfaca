package dev.sluice.client;

/**
 * The call's one absolute deadline, fixed when it was admitted and shared by all its retries,
 * passed before it could start (SPEC §5.2, §5.3; regression case R20). Work that expired while
 * queued is dropped, never started.
 */
public final class DeadlineExceededException extends ShedException {

    public DeadlineExceededException(String message, ShedReason reason, int attempts) {
        super(message, reason, null, attempts);
        if (reason != ShedReason.DEADLINE_AT_SUBMIT && reason != ShedReason.DEADLINE_AT_DEQUEUE) {
            throw new IllegalArgumentException("not a deadline reason: " + reason);
        }
    }
}
