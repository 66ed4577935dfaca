package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.DeadLetter;
import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.NoSuchEntryException;
import dev.sluice.delivery.ReplayRefusedException;
import dev.sluice.delivery.ReviewResolution;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The dead-letter aggregate (SPEC §6.6, R22): records copied from a ledger row's final state, their
 * listing, replay with the original key, and the resolution of rows waiting in review. Works on the
 * caller's connection and transaction.
 */
final class DeadLetterRepository {

    private final Tables t;
    private final LeaseRepository leases;
    private final OutboxRepository outbox;

    DeadLetterRepository(Tables t, LeaseRepository leases, OutboxRepository outbox) {
        this.t = t;
        this.leases = leases;
        this.outbox = outbox;
    }

    /** Copies the ledger row's final state (after its update) into a new dead-letter record. */
    void insert(Connection c, long ledgerId, DeadLetterReason reason, String redactedPayload, long atMicros)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.deadLetter()
                + " (ledger_id, event_id, destination, idempotency_key, event_type, reason, final_class, final_status,"
                + " attempts, last_error, redacted_payload, dead_micros)"
                + " SELECT l.id, e.event_id, e.destination, e.idempotency_key, e.event_type, ?, l.last_class,"
                + " l.last_status, l.attempts, l.last_error, ?, ?"
                + Rows.ledgerFrom(t) + " WHERE l.id = ?")) {
            ps.setString(1, reason.dbValue());
            ps.setString(2, redactedPayload);
            ps.setLong(3, atMicros);
            ps.setLong(4, ledgerId);
            ps.executeUpdate();
        }
    }

    List<DeadLetter> list(Connection c, int limit) throws SQLException {
        List<DeadLetter> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT * FROM " + t.deadLetter() + " ORDER BY id DESC LIMIT ?")) {
            ps.setInt(1, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(Rows.deadLetter(rs));
                }
            }
        }
        return out;
    }

    Optional<DeadLetter> get(Connection c, long id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT * FROM " + t.deadLetter() + " WHERE id = ?")) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(Rows.deadLetter(rs)) : Optional.empty();
            }
        }
    }

    /** Puts a dead letter's ledger row back to pending with its original key, or says why not. */
    LedgerEntry replay(Connection c, long deadLetterId, long nowMicros, long expiresMicros) throws SQLException {
        long ledgerId;
        LedgerState state;
        boolean enabled;
        try (PreparedStatement ps = c.prepareStatement("SELECT dl.ledger_id, l.state, d.enabled FROM "
                + t.deadLetter() + " dl JOIN " + t.ledger() + " l ON l.id = dl.ledger_id JOIN " + t.event()
                + " e ON e.id = l.id JOIN " + t.destination() + " d ON d.name = e.destination WHERE dl.id = ?")) {
            ps.setLong(1, deadLetterId);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new NoSuchEntryException("no dead letter " + deadLetterId);
                }
                ledgerId = rs.getLong(1);
                state = LedgerState.fromDb(rs.getString(2));
                enabled = rs.getInt(3) == 1;
            }
        }
        switch (state) {
            case DELIVERED -> throw new ReplayRefusedException(ReplayRefusedException.Reason.ALREADY_DELIVERED,
                    "dead letter " + deadLetterId + " was delivered since; a replay could only act twice");
            case PENDING, IN_FLIGHT -> throw new ReplayRefusedException(ReplayRefusedException.Reason.ALREADY_QUEUED,
                    "dead letter " + deadLetterId + " is queued again already (" + state.dbValue() + ")");
            case REVIEW -> throw new ReplayRefusedException(ReplayRefusedException.Reason.IN_REVIEW,
                    "dead letter " + deadLetterId + " waits in review; resolve it instead");
            case DEAD -> {
            }
        }
        if (!enabled) {
            throw new ReplayRefusedException(ReplayRefusedException.Reason.DESTINATION_DISABLED,
                    "the destination of dead letter " + deadLetterId + " is disabled; enable it first");
        }
        leases.requeue(c, ledgerId, nowMicros, expiresMicros, true);
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.deadLetter()
                + " SET replay_count = replay_count + 1, replayed_micros = ? WHERE id = ?")) {
            ps.setLong(1, nowMicros);
            ps.setLong(2, deadLetterId);
            ps.executeUpdate();
        }
        return outbox.entry(c, ledgerId).orElseThrow();
    }

    /** Applies a person's verdict to a row in review, or refuses a row that is not in review. */
    LedgerEntry resolveReview(Connection c, long ledgerId, ReviewResolution resolution, long nowMicros,
            long expiresMicros, String redactedPayload) throws SQLException {
        LedgerEntry entry = outbox.entry(c, ledgerId)
                .orElseThrow(() -> new NoSuchEntryException("no ledger row " + ledgerId));
        if (entry.state() != LedgerState.REVIEW) {
            throw new ReplayRefusedException(ReplayRefusedException.Reason.WRONG_STATE,
                    "ledger row " + ledgerId + " is " + entry.state().dbValue() + ", not in review");
        }
        switch (resolution) {
            case DELIVERED -> leases.resolveDelivered(c, ledgerId,
                    "resolved in review as delivered (was: " + Rows.clip(entry.lastError()) + ")", nowMicros);
            case RETRY -> leases.requeue(c, ledgerId, nowMicros, expiresMicros, false);
            case DEAD -> {
                leases.resolveDead(c, ledgerId, nowMicros);
                insert(c, ledgerId, DeadLetterReason.REVIEW_ABANDONED, redactedPayload, nowMicros);
            }
        }
        return outbox.entry(c, ledgerId).orElseThrow();
    }
}
