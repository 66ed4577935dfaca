package dev.sluice.delivery;

import java.time.Instant;

/**
 * One ledger row: the state of one delivery (one event to one destination, one idempotency key).
 *
 * @param ledgerId the row's id (also the review id)
 * @param event the event
 * @param state where it stands
 * @param attempts requests sent in the current delivery run (a replay starts a new run)
 * @param lastClass the last attempt's class, or {@code null} before the first attempt
 * @param lastStatus the last HTTP status, or {@code null} when there was none
 * @param lastError a short description of the last failure, or {@code null}
 * @param eligibleAt the next time an attempt may start (UTC)
 * @param expiresAt when the event's maximum age runs out (SPEC §6.5)
 * @param leaseOwner the worker holding the row while in flight, or {@code null}
 * @param leaseExpiresAt when that lease lapses unless renewed, or {@code null}
 * @param updatedAt the last change (UTC)
 * @param deliveredAt when a 2xx was recorded, or {@code null}
 */
public record LedgerEntry(
        long ledgerId,
        Event event,
        LedgerState state,
        int attempts,
        ResponseClass lastClass,
        Integer lastStatus,
        String lastError,
        Instant eligibleAt,
        Instant expiresAt,
        String leaseOwner,
        Instant leaseExpiresAt,
        Instant updatedAt,
        Instant deliveredAt) {
}
