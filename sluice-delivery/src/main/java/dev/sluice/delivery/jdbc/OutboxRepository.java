package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.StoreException;
import dev.sluice.delivery.UnknownDestinationException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The outbox aggregate (SPEC §6.4): an immutable event row and its ledger row, written together,
 * and the reads of the ledger (rows, listings, counts, the next due time). Works on the caller's
 * connection and transaction.
 */
final class OutboxRepository {

    /** Binds a query's parameters. */
    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private final Tables t;
    private final DestinationBucket destinations;

    OutboxRepository(Tables t, DestinationBucket destinations) {
        this.t = t;
        this.destinations = destinations;
    }

    /** The event and its pending ledger row, or what a key already known for the destination holds. */
    EnqueueResult enqueue(Connection c, Event e, Instant expiresAt) throws SQLException {
        if (!destinations.exists(c, e.destination())) {
            throw new UnknownDestinationException(e.destination());
        }
        Long id = null;
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.event()
                + " (event_id, destination, idempotency_key, event_type, payload, created_micros)"
                + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (destination, idempotency_key) DO NOTHING RETURNING id")) {
            ps.setString(1, e.eventId());
            ps.setString(2, e.destination());
            ps.setString(3, e.idempotencyKey());
            ps.setString(4, e.type());
            ps.setString(5, e.payload());
            ps.setLong(6, Micros.of(e.createdAt()));
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    id = rs.getLong(1);
                }
            }
        }
        if (id != null) {
            long created = Micros.of(e.createdAt());
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.ledger()
                    + " (id, state, attempts, eligible_micros, expires_micros, visible_micros, sending, updated_micros)"
                    + " VALUES (?, 'pending', 0, ?, ?, ?, 0, ?)")) {
                ps.setLong(1, id);
                ps.setLong(2, created);
                ps.setLong(3, Micros.of(expiresAt));
                ps.setLong(4, created);
                ps.setLong(5, created);
                ps.executeUpdate();
            }
            return new EnqueueResult(id, e, EnqueueResult.Outcome.ENQUEUED);
        }
        LedgerEntry existing = entry(c, e.destination(), e.idempotencyKey())
                .orElseThrow(() -> new StoreException("event row without ledger row: " + e.idempotencyKey()));
        EnqueueResult.Outcome outcome = switch (existing.state()) {
            case PENDING, IN_FLIGHT -> EnqueueResult.Outcome.ALREADY_QUEUED;
            case DELIVERED -> EnqueueResult.Outcome.SUPPRESSED_DELIVERED;
            case DEAD -> EnqueueResult.Outcome.ALREADY_DEAD;
            case REVIEW -> EnqueueResult.Outcome.IN_REVIEW;
        };
        return new EnqueueResult(existing.ledgerId(), existing.event(), outcome);
    }

    Optional<LedgerEntry> entry(Connection c, long ledgerId) throws SQLException {
        return select(c, "l.id = ?", ps -> ps.setLong(1, ledgerId));
    }

    Optional<LedgerEntry> entry(Connection c, String destination, String idempotencyKey) throws SQLException {
        return select(c, "e.destination = ? AND e.idempotency_key = ?", ps -> {
            ps.setString(1, destination);
            ps.setString(2, idempotencyKey);
        });
    }

    private Optional<LedgerEntry> select(Connection c, String where, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + Rows.LEDGER_COLUMNS + Rows.ledgerFrom(t)
                + " WHERE " + where)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(Rows.entry(rs)) : Optional.empty();
            }
        }
    }

    List<LedgerEntry> entries(Connection c, LedgerState state, int limit) throws SQLException {
        List<LedgerEntry> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT " + Rows.LEDGER_COLUMNS + Rows.ledgerFrom(t)
                + " WHERE l.state = ? ORDER BY l.updated_micros, l.id LIMIT ?")) {
            ps.setString(1, state.dbValue());
            ps.setInt(2, limit);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(Rows.entry(rs));
                }
            }
        }
        return out;
    }

    DeliveryStatus status(Connection c, Instant now) throws SQLException {
        long nowMicros = Micros.of(now);
        Map<LedgerState, Long> byState = new EnumMap<>(LedgerState.class);
        for (LedgerState s : LedgerState.values()) {
            byState.put(s, 0L);
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT state, COUNT(*) FROM " + t.ledger()
                + " GROUP BY state"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byState.put(LedgerState.fromDb(rs.getString(1)), rs.getLong(2));
            }
        }
        Map<DeadLetterReason, Long> byReason = new EnumMap<>(DeadLetterReason.class);
        for (DeadLetterReason r : DeadLetterReason.values()) {
            byReason.put(r, 0L);
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT reason, COUNT(*) FROM " + t.deadLetter()
                + " GROUP BY reason"); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                byReason.put(DeadLetterReason.fromDb(rs.getString(1)), rs.getLong(2));
            }
        }
        long due;
        try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + t.ledger()
                + " WHERE state IN ('pending', 'in_flight') AND state = 'pending' AND visible_micros <= ?")) {
            ps.setLong(1, nowMicros);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                due = rs.getLong(1);
            }
        }
        Long next;
        try (PreparedStatement ps = c.prepareStatement("SELECT MIN(eligible_micros) FROM " + t.ledger()
                + " WHERE state = 'pending'"); ResultSet rs = ps.executeQuery()) {
            next = Rows.nullableLong(rs);
        }
        return new DeliveryStatus(byState, byReason, due, next == null ? null : Micros.toInstant(next), now);
    }

    /** The earliest time a row becomes claimable (eligible or lease lapse), or empty. */
    Optional<Instant> nextVisibleAt(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT MIN(visible_micros) FROM " + t.ledger()
                + " WHERE state IN ('pending', 'in_flight')"); ResultSet rs = ps.executeQuery()) {
            return Optional.ofNullable(Rows.nullableLong(rs)).map(Micros::toInstant);
        }
    }
}
