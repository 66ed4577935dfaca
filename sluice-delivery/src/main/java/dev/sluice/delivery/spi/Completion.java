package dev.sluice.delivery.spi;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.ResponseClass;
import java.time.Instant;

/**
 * The outcome of one claim, recorded by {@link DeliveryStore#finish} in one transaction together
 * with the next scheduling (SPEC §6.4) before the claim is released.
 */
public sealed interface Completion {

    /** When the outcome was recorded (UTC). */
    Instant at();

    /** Whether a request was sent (the ledger's attempt count goes up by one). */
    boolean attempted();

    /** A 2xx arrived. Recorded even if the lease lapsed meanwhile: a delivery is a fact. */
    record Delivered(int status, Instant at) implements Completion {
        @Override
        public boolean attempted() {
            return true;
        }
    }

    /**
     * Try again at {@code eligibleAt} with the same key.
     *
     * @param responseClass the attempt's class
     * @param status the HTTP status, or {@code null}
     * @param error the failure's description
     * @param eligibleAt the next attempt's earliest start (UTC)
     */
    record Retry(ResponseClass responseClass, Integer status, String error, Instant eligibleAt, Instant at,
            boolean attempted) implements Completion {
    }

    /**
     * Dead-letter it (a dead-letter record is written in the same transaction).
     *
     * @param reason why
     * @param responseClass the final class, or {@code null} when no attempt was ever made
     * @param status the final status, or {@code null}
     * @param error the last error, or {@code null}
     * @param redactedPayload the redacted copy kept in the dead letter, or {@code null}
     * @param disableDestination also disable the destination (a 410)
     */
    record Dead(DeadLetterReason reason, ResponseClass responseClass, Integer status, String error,
            String redactedPayload, Instant at, boolean attempted, boolean disableDestination) implements Completion {
    }

    /**
     * Park it for a person: the outcome is unknown and the destination does not deduplicate.
     */
    record Review(ResponseClass responseClass, Integer status, String error, Instant at, boolean attempted)
            implements Completion {
    }
}
