package dev.sluice.delivery;

import java.time.Instant;
import java.util.Map;

/**
 * A snapshot of the store: how many deliveries are in each state, dead letters by reason, and the
 * queue's head (SPEC §6.9 queue depth).
 *
 * @param byState ledger rows per state (every state present, zero included)
 * @param deadLettersByReason dead-letter records per reason (every reason present)
 * @param dueNow pending rows whose eligible time has come (the backlog)
 * @param nextEligibleAt the earliest eligible time of a pending row, or {@code null} when none
 * @param at when the snapshot was taken (UTC)
 */
public record DeliveryStatus(
        Map<LedgerState, Long> byState,
        Map<DeadLetterReason, Long> deadLettersByReason,
        long dueNow,
        Instant nextEligibleAt,
        Instant at) {

    public DeliveryStatus {
        byState = Map.copyOf(byState);
        deadLettersByReason = Map.copyOf(deadLettersByReason);
    }

    /** Rows in {@code state}. */
    public long count(LedgerState state) {
        return byState.getOrDefault(state, 0L);
    }

    /** Rows not yet finished: pending, in flight or in review. */
    public long unfinished() {
        return count(LedgerState.PENDING) + count(LedgerState.IN_FLIGHT) + count(LedgerState.REVIEW);
    }

    /** Dead-letter records in all. */
    public long deadLetters() {
        return deadLettersByReason.values().stream().mapToLong(Long::longValue).sum();
    }
}
