package dev.sluice.delivery;

/**
 * What {@code enqueue} did.
 *
 * @param ledgerId the ledger row of (destination, idempotency key); the review id and the
 *     handle of {@link Delivery#entry(long)}
 * @param event the stored event. For a duplicate key this is the event stored first: the outbox
 *     keeps the first payload of a key (same key, same event).
 * @param outcome see {@link Outcome}
 */
public record EnqueueResult(long ledgerId, Event event, Outcome outcome) {

    /** What became of the enqueue. */
    public enum Outcome {
        /** A new event and ledger row were written. */
        ENQUEUED,
        /** The key is already pending or in flight for this destination: nothing new written. */
        ALREADY_QUEUED,
        /** The key was already delivered: suppressed, no token and no request (SPEC §6.2). */
        SUPPRESSED_DELIVERED,
        /** The key is dead-lettered: use {@link Delivery#replay(long)} to send it again. */
        ALREADY_DEAD,
        /** The key waits for a person in {@link LedgerState#REVIEW}. */
        IN_REVIEW
    }
}
