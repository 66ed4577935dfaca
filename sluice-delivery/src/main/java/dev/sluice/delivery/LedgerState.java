package dev.sluice.delivery;

import java.util.Locale;

/**
 * Where one delivery (one event to one destination, one idempotency key) stands (SPEC §6.4).
 *
 * <pre>
 * PENDING ──claim──▶ IN_FLIGHT ──2xx──▶ DELIVERED
 *    ▲                  │ retryable (§6.3), or no token (§6.2)
 *    └──────────────────┤
 *                       ├─ terminal / expired / 410 ──▶ DEAD ──replay──▶ PENDING
 *                       └─ ambiguous, idempotent:false ──▶ REVIEW ──resolve──▶ PENDING | DELIVERED | DEAD
 * </pre>
 *
 * An IN_FLIGHT row whose lease expired (its worker crashed) is claimable again.
 */
public enum LedgerState {
    PENDING,
    IN_FLIGHT,
    DELIVERED,
    DEAD,
    REVIEW;

    /** The value stored in the ledger's {@code state} column: {@code pending}, {@code in_flight}, ... */
    public String dbValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException if {@code value} names no state
     */
    public static LedgerState fromDb(String value) {
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}
