package dev.sluice.delivery.spi;

import java.time.Duration;
import java.time.Instant;

/**
 * The answer of {@link DeliveryStore#startAttempt}: the two checks SPEC §6.2 puts before a request,
 * in order (ledger says done → suppress; take a token → none means reschedule), in one transaction.
 */
public sealed interface AttemptStart {

    /** A token was taken and the row is marked as sending: send the request now. */
    record Proceed() implements AttemptStart {
    }

    /** The ledger says delivered: no token taken, no request. */
    record Suppressed() implements AttemptStart {
    }

    /** This worker no longer holds the row (its lease lapsed and another worker took it). */
    record LeaseLost() implements AttemptStart {
    }

    /** The destination is disabled; no token taken. */
    record DestinationDisabled() implements AttemptStart {
    }

    /**
     * The destination's bucket had no token: the row was already rescheduled to
     * {@code eligibleAt} (when the next token comes) and released, without a request.
     *
     * @param delay how long until the next token
     * @param eligibleAt the new eligible time
     */
    record NoToken(Duration delay, Instant eligibleAt) implements AttemptStart {
    }
}
