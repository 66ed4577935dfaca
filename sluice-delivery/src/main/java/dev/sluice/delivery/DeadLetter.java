package dev.sluice.delivery;

import java.time.Instant;

/**
 * One dead-letter record (SPEC §6.6, regression case R22). It has its own id, so one event that
 * failed for two destinations (or twice for one, after a replay) gives two records, each pointing
 * back at the original event id and idempotency key that a replay sends again.
 *
 * @param id the record's own id (what {@code replay} takes)
 * @param ledgerId the ledger row it came from
 * @param eventId the original event id
 * @param destination the destination that failed
 * @param idempotencyKey the original key, sent again on replay
 * @param eventType the event type
 * @param reason why
 * @param finalClass the last attempt's class, or {@code null} when no attempt was made
 * @param finalStatus the last HTTP status, or {@code null}
 * @param attempts requests sent in the run that ended here
 * @param lastError the last failure's description, or {@code null}
 * @param redactedPayload the payload with the configured JSON paths replaced by
 *     {@code "[redacted]"}, or {@code null} when the payload was not JSON (then no copy is kept)
 * @param deadAt when it was dead-lettered (UTC)
 * @param replayCount how many times it was replayed
 * @param lastReplayedAt the last replay, or {@code null}
 */
public record DeadLetter(
        long id,
        long ledgerId,
        String eventId,
        String destination,
        String idempotencyKey,
        String eventType,
        DeadLetterReason reason,
        ResponseClass finalClass,
        Integer finalStatus,
        int attempts,
        String lastError,
        String redactedPayload,
        Instant deadAt,
        int replayCount,
        Instant lastReplayedAt) {
}
