package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.DestinationState;
import dev.sluice.delivery.Rate;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The destination aggregate: configuration, the enabled flag, and the shared token bucket (SPEC
 * §6.2), a GCRA row holding one theoretical arrival time ({@code tat_micros}, Unix µs) with the
 * emission interval {@code T = interval_micros} and the burst {@code b}. A token is taken at
 * {@code now} iff {@code max(tat, now) − now ≤ (b − 1)·T}, and then {@code tat = max(tat, now) + T}:
 * the same rule as {@code dev.sluice.limiter.gcra.Gcra} with one tick per µs and a capacity of
 * {@code b·T} (a differential test holds the two together). The update is one conditional
 * statement, so every worker sharing the store shares the bucket. Works on the caller's
 * connection and transaction.
 */
final class DestinationBucket {

    /** The answer of {@link #take}: a token, none until {@code waitMicros}, or no enabled destination. */
    sealed interface Take {
        record Granted() implements Take {
        }

        record Wait(long waitMicros) implements Take {
        }

        record Disabled() implements Take {
        }
    }

    private final Tables t;
    private final Dialect dialect;

    DestinationBucket(Tables t, Dialect dialect) {
        this.t = t;
        this.dialect = dialect;
    }

    void upsert(Connection c, Destination d, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.destination()
                + " (name, url, secret, idempotent, interval_micros, burst, tat_micros, enabled, updated_micros)"
                + " VALUES (?, ?, ?, ?, ?, ?, 0, 1, ?) ON CONFLICT (name) DO UPDATE SET url = excluded.url,"
                + " secret = excluded.secret, idempotent = excluded.idempotent,"
                + " interval_micros = excluded.interval_micros, burst = excluded.burst,"
                + " updated_micros = excluded.updated_micros")) {
            ps.setString(1, d.name());
            ps.setString(2, d.url().toString());
            ps.setString(3, d.secret());
            ps.setInt(4, d.idempotent() ? 1 : 0);
            ps.setLong(5, d.rate().intervalMicros());
            ps.setInt(6, d.rate().burst());
            ps.setLong(7, nowMicros);
            ps.executeUpdate();
        }
    }

    boolean enable(Connection c, String name, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.destination()
                + " SET enabled = 1, disabled_reason = NULL, updated_micros = ? WHERE name = ?")) {
            ps.setLong(1, nowMicros);
            ps.setString(2, name);
            return ps.executeUpdate() == 1;
        }
    }

    void disable(Connection c, String name, String reason, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.destination() + " SET enabled = 0,"
                + " disabled_reason = ?, updated_micros = ? WHERE name = ?")) {
            ps.setString(1, reason);
            ps.setLong(2, nowMicros);
            ps.setString(3, name);
            ps.executeUpdate();
        }
    }

    boolean exists(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + t.destination() + " WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    List<DestinationState> list(Connection c) throws SQLException {
        List<DestinationState> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("SELECT name, url, secret, idempotent, interval_micros,"
                + " burst, enabled, disabled_reason, updated_micros FROM " + t.destination() + " ORDER BY name");
                ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new DestinationState(destination(rs, rs.getString("name")), rs.getInt("enabled") == 1,
                        rs.getString("disabled_reason"), Micros.toInstant(rs.getLong("updated_micros"))));
            }
        }
        return out;
    }

    /** A destination's configuration from a row with {@code url, secret, idempotent, interval_micros, burst}. */
    static Destination destination(ResultSet rs, String name) throws SQLException {
        return new Destination(name, URI.create(rs.getString("url")),
                new Rate(1_000_000.0 / rs.getLong("interval_micros"), rs.getInt("burst")), rs.getString("secret"),
                rs.getInt("idempotent") == 1);
    }

    /** Takes one token from {@code name}'s bucket at {@code nowMicros}, or says how long until the next one. */
    Take take(Connection c, String name, long nowMicros) throws SQLException {
        Grant g = grant(c, name, 1, nowMicros);
        return g.disabled() ? new Take.Disabled() : g.granted() == 1 ? new Take.Granted() : new Take.Wait(g.waitMicros());
    }

    /**
     * The answer of {@link #grant}.
     *
     * @param granted tokens taken, {@code 0 ≤ granted ≤ n}
     * @param waitMicros when fewer than asked: µs from now until the next token, at least 1; else 0
     * @param disabled no enabled destination of that name (nothing taken)
     */
    record Grant(int granted, long waitMicros, boolean disabled) {
    }

    /**
     * Takes up to {@code n} tokens at {@code nowMicros} for a batch of attempts: the one conditional
     * GCRA {@code UPDATE} run {@code n} times in one JDBC batch (one round trip on PostgreSQL, the
     * row locked once for the whole batch). Once a token is refused the rest are too (the row is
     * unchanged), so the tokens go to the first {@code granted} attempts of the batch.
     */
    Grant grant(Connection c, String name, int n, long nowMicros) throws SQLException {
        String g = dialect.greatest();
        int granted = 0;
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.destination() + " SET tat_micros = "
                + g + "(tat_micros, ?) + interval_micros WHERE name = ? AND enabled = 1 AND "
                + g + "(tat_micros, ?) - ? <= (burst - 1) * interval_micros")) {
            for (int i = 0; i < n; i++) {
                ps.setLong(1, nowMicros);
                ps.setString(2, name);
                ps.setLong(3, nowMicros);
                ps.setLong(4, nowMicros);
                if (n == 1) {
                    granted = ps.executeUpdate();
                } else {
                    ps.addBatch();
                }
            }
            if (n > 1) {
                for (int count : ps.executeBatch()) {
                    if (count != 1) {
                        break;
                    }
                    granted++;
                }
            }
        }
        if (granted == n) {
            return new Grant(granted, 0, false);
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT tat_micros, interval_micros, burst, enabled FROM "
                + t.destination() + " WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getInt(4) != 1) {
                    return new Grant(0, 0, true);
                }
                long tat = rs.getLong(1);
                long interval = rs.getLong(2);
                int burst = rs.getInt(3);
                return new Grant(granted,
                        Math.max(1L, Math.max(tat, nowMicros) - nowMicros - (burst - 1L) * interval), false);
            }
        }
    }
}
