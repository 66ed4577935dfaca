package dev.sluice.delivery;

/** What a person decided about an item in {@link LedgerState#REVIEW}. */
public enum ReviewResolution {
    /** The receiver did act on it (checked out of band): mark delivered, send nothing. */
    DELIVERED,
    /** The receiver did not act on it: send again now, with the same idempotency key. */
    RETRY,
    /** Give up: dead-letter it with reason {@link DeadLetterReason#REVIEW_ABANDONED}. */
    DEAD
}
