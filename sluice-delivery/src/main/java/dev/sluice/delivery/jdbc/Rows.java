package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.DeadLetter;
import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.ResponseClass;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;

/** Row ↔ value mapping shared by the repositories: the ledger's join, dead letters, nullable columns. */
final class Rows {

    /** The columns {@link #entry} reads, from {@link #ledgerFrom}. */
    static final String LEDGER_COLUMNS = "l.id, l.state, l.attempts, l.last_class, l.last_status, l.last_error,"
            + " l.eligible_micros, l.expires_micros, l.lease_owner, l.lease_expires_micros, l.updated_micros,"
            + " l.delivered_micros, e.event_id, e.destination, e.event_type, e.idempotency_key, e.payload,"
            + " e.created_micros";

    private Rows() {
    }

    /** {@code FROM ledger l JOIN event e}: a ledger row with its event. */
    static String ledgerFrom(Tables t) {
        return " FROM " + t.ledger() + " l JOIN " + t.event() + " e ON e.id = l.id";
    }

    static Event event(ResultSet rs) throws SQLException {
        return new Event(rs.getString("event_id"), rs.getString("destination"), rs.getString("event_type"),
                rs.getString("idempotency_key"), rs.getString("payload"),
                Micros.toInstant(rs.getLong("created_micros")));
    }

    static LedgerEntry entry(ResultSet rs) throws SQLException {
        return new LedgerEntry(rs.getLong("id"), event(rs), LedgerState.fromDb(rs.getString("state")),
                rs.getInt("attempts"), ResponseClass.fromDb(rs.getString("last_class")),
                nullableInt(rs, "last_status"), rs.getString("last_error"),
                Micros.toInstant(rs.getLong("eligible_micros")), Micros.toInstant(rs.getLong("expires_micros")),
                rs.getString("lease_owner"), nullableInstant(rs, "lease_expires_micros"),
                Micros.toInstant(rs.getLong("updated_micros")), nullableInstant(rs, "delivered_micros"));
    }

    static DeadLetter deadLetter(ResultSet rs) throws SQLException {
        return new DeadLetter(rs.getLong("id"), rs.getLong("ledger_id"), rs.getString("event_id"),
                rs.getString("destination"), rs.getString("idempotency_key"), rs.getString("event_type"),
                DeadLetterReason.fromDb(rs.getString("reason")), ResponseClass.fromDb(rs.getString("final_class")),
                nullableInt(rs, "final_status"), rs.getInt("attempts"), rs.getString("last_error"),
                rs.getString("redacted_payload"), Micros.toInstant(rs.getLong("dead_micros")),
                rs.getInt("replay_count"), nullableInstant(rs, "replayed_micros"));
    }

    static Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }

    static Instant nullableInstant(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Micros.toInstant(v);
    }

    /** The first column of the only row, or {@code null} when it is SQL NULL (an aggregate over no rows). */
    static Long nullableLong(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            return null;
        }
        long v = rs.getLong(1);
        return rs.wasNull() ? null : v;
    }

    static void setNullableInt(PreparedStatement ps, int index, Integer value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setInt(index, value);
        }
    }

    /** Errors are for people: keep them short enough to list. */
    static String clip(String s) {
        if (s == null) {
            return null;
        }
        return s.length() <= 500 ? s : s.substring(0, 500) + "…";
    }
}
