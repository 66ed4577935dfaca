package dev.sluice.delivery.spi;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.ResponseClass;
import java.time.Instant;

/**
 * One ledger row a worker has claimed: the row is {@code IN_FLIGHT} under this worker's lease
 * until {@link DeliveryStore#finish} records the outcome or the lease lapses.
 *
 * @param ledgerId the row
 * @param event the event
 * @param destination the destination's configuration at claim time
 * @param attempts requests already sent in this run (this attempt, if made, is number attempts + 1)
 * @param eligibleAt when the row became eligible (UTC)
 * @param expiresAt when the event's maximum age runs out (UTC)
 * @param lastClass the previous attempt's class, or {@code null}
 * @param lastStatus the previous attempt's status, or {@code null}
 * @param lastError the previous attempt's error, or {@code null}
 * @param interruptedAttempt {@code true} when the previous holder took a token and may have sent
 *     the request but never recorded an outcome (it crashed or lost its lease mid-attempt): the
 *     receiver may have acted on it
 * @param owner the claiming worker's id
 * @param leaseToken a value unique to this claim; completions are fenced by it so that a worker
 *     whose lease lapsed cannot overwrite the next holder's outcome
 */
public record Claim(
        long ledgerId,
        Event event,
        Destination destination,
        int attempts,
        Instant eligibleAt,
        Instant expiresAt,
        ResponseClass lastClass,
        Integer lastStatus,
        String lastError,
        boolean interruptedAttempt,
        String owner,
        String leaseToken) {

    /**
     * Whether an attempt of this claim takes a token and goes on to a request at {@code now}
     * (SPEC §6.2, §6.5): not when the event's maximum age has run out ({@code now} at or after
     * {@link #expiresAt()}: dead letter {@code expired}), and not when it is an interrupted attempt
     * to a destination that cannot deduplicate (review: the receiver may have acted on it). The rule
     * {@link DeliveryStore#claimAndStart(String, int, Instant, java.time.Duration)} applies.
     *
     * @param now the attempt's time (UTC)
     */
    public boolean takesToken(Instant now) {
        return !(interruptedAttempt && !destination.idempotent()) && now.isBefore(expiresAt);
    }
}
