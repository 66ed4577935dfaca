package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.AttemptStart;
import dev.sluice.delivery.spi.Claim;
import dev.sluice.delivery.spi.ClaimedStart;
import dev.sluice.delivery.spi.Completion;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Leases and attempts: the ledger row's life while workers hold it (SPEC §6.2, §6.4, §6.7). A claim
 * leases due rows to one worker under a fresh token; every later write of that claim is fenced by
 * the token, so a worker whose lease lapsed cannot overwrite the next holder's outcome. Works on the
 * caller's connection and transaction; nothing here commits or rolls back, so that several
 * attempts' writes can share one transaction (SQLite's group commit).
 */
final class LeaseRepository {

    private final Tables t;
    private final Dialect dialect;
    private final DestinationBucket destinations;

    LeaseRepository(Tables t, Dialect dialect, DestinationBucket destinations) {
        this.t = t;
        this.dialect = dialect;
        this.destinations = destinations;
    }

    /** Up to {@code max} due rows, oldest first, leased to {@code owner} until {@code leaseUntil}. */
    List<Claim> claim(Connection c, String owner, String token, int max, long nowMicros, long leaseUntil)
            throws SQLException {
        List<Claim> claims = new ArrayList<>(max);
        try (PreparedStatement ps = c.prepareStatement("SELECT l.id, l.sending, l.attempts, l.eligible_micros,"
                + " l.expires_micros, l.last_class, l.last_status, l.last_error, e.event_id, e.destination,"
                + " e.idempotency_key, e.event_type, e.payload, e.created_micros, d.url, d.secret, d.idempotent,"
                + " d.interval_micros, d.burst"
                + " FROM " + t.ledger() + " l JOIN " + t.event() + " e ON e.id = l.id"
                + " JOIN " + t.destination() + " d ON d.name = e.destination"
                + " WHERE l.state IN ('pending', 'in_flight') AND l.visible_micros <= ?"
                + " ORDER BY l.visible_micros LIMIT ?" + dialect.claimLock())) {
            ps.setLong(1, nowMicros);
            ps.setInt(2, max);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    claims.add(claimFrom(rs, owner, token));
                }
            }
        }
        if (claims.isEmpty()) {
            return claims;
        }
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'in_flight',"
                + " lease_owner = ?, lease_token = ?, lease_expires_micros = ?, visible_micros = ?, sending = 0,"
                + " updated_micros = ? WHERE id = ?")) {
            for (Claim cl : claims) {
                ps.setString(1, owner);
                ps.setString(2, token);
                ps.setLong(3, leaseUntil);
                ps.setLong(4, leaseUntil);
                ps.setLong(5, nowMicros);
                ps.setLong(6, cl.ledgerId());
                ps.addBatch();
            }
            ps.executeBatch();
        }
        return claims;
    }

    /**
     * PostgreSQL: {@link #claim} and {@link #startAttempts} under the rule of {@link Claim#takesToken}
     * in one statement, so one round trip (run it in auto-commit mode). Its steps, as CTEs:
     * <ol>
     *   <li>{@code due}: up to {@code max} due ledger rows, oldest first, locked, skipping rows other
     *       workers hold ({@code FOR UPDATE SKIP LOCKED}, SPEC §6.7);</li>
     *   <li>{@code picked}: with their events and destinations, and whether the rule starts each;</li>
     *   <li>{@code bucket}: the bucket row of every destination with rows to start, locked in name
     *       order (so that workers never wait on each other in a cycle); a locked row is its newest
     *       version, so the tokens are computed from the state every other worker left;</li>
     *   <li>{@code grants}: {@code granted = min(n, ⌊((b − 1)·T − s) / T⌋ + 1)} with
     *       {@code s = max(tat, now) − now}, or 0 when {@code s > (b − 1)·T} or the destination is
     *       disabled: the count that {@code n} conditional GCRA updates in a row would grant
     *       ({@link DestinationBucket#grant}); {@code tat} moves to {@code max(tat, now) + granted·T};</li>
     *   <li>{@code leased}: per row, the first {@code granted} startable rows of a destination (in claim
     *       order) are leased and marked as sending; the rest of them are rescheduled to the next
     *       token, {@code max(1, max(tat, now) − now − (b − 1)·T)} µs on; rows the rule does not start
     *       and rows of a disabled destination are leased, not marked.</li>
     * </ol>
     * The statement also relaxes its own commit ({@code set_config('synchronous_commit', 'off',
     * true)}) when every claimed destination deduplicates, as {@code JdbcDeliveryStore} does for a
     * start in a transaction of its own: a lost claim is a row due again, sent again with the same key.
     *
     * @return one entry per claimed row, oldest first
     */
    List<ClaimedStart> claimAndStartAtOnce(Connection c, String owner, String token, int max, long nowMicros,
            long leaseUntil) throws SQLException {
        String l = t.ledger();
        String d = t.destination();
        String sql = "WITH p AS (SELECT CAST(? AS BIGINT) AS p_now, CAST(? AS TEXT) AS p_owner,"
                + " CAST(? AS TEXT) AS p_token, CAST(? AS BIGINT) AS p_until),"
                + " due AS (SELECT l.id, l.sending, l.attempts, l.eligible_micros, l.expires_micros, l.last_class,"
                + " l.last_status, l.last_error, l.visible_micros FROM " + l + " l"
                + " WHERE l.state IN ('pending', 'in_flight') AND l.visible_micros <= ?"
                + " ORDER BY l.visible_micros LIMIT ? FOR UPDATE OF l SKIP LOCKED),"
                + " picked AS (SELECT due.*, e.event_id, e.destination, e.idempotency_key, e.event_type, e.payload,"
                + " e.created_micros, d.url, d.secret, d.idempotent, d.interval_micros, d.burst,"
                + " (NOT (due.sending = 1 AND d.idempotent = 0) AND p.p_now < due.expires_micros) AS startable"
                + " FROM due JOIN " + t.event() + " e ON e.id = due.id JOIN " + d + " d ON d.name = e.destination"
                + " CROSS JOIN p),"
                + " ranked AS (SELECT picked.*, row_number() OVER (PARTITION BY destination, startable"
                + " ORDER BY visible_micros, id) AS nth FROM picked),"
                + " wanted AS (SELECT destination, count(*) AS n FROM picked WHERE startable GROUP BY destination),"
                + " bucket AS (SELECT d.name, d.tat_micros, d.interval_micros, d.burst, d.enabled, w.n FROM " + d + " d"
                + " JOIN wanted w ON w.destination = d.name ORDER BY d.name FOR UPDATE OF d),"
                + " grants AS (SELECT b.*, CASE WHEN b.enabled <> 1 THEN 0"
                + " WHEN GREATEST(b.tat_micros, p.p_now) - p.p_now > (b.burst - 1) * b.interval_micros THEN 0"
                + " ELSE LEAST(b.n, ((b.burst - 1) * b.interval_micros - (GREATEST(b.tat_micros, p.p_now) - p.p_now))"
                + " / b.interval_micros + 1) END AS granted FROM bucket b CROSS JOIN p),"
                + " next_tat AS (SELECT g.*, CASE WHEN g.granted > 0 THEN GREATEST(g.tat_micros, p.p_now)"
                + " + g.granted * g.interval_micros ELSE g.tat_micros END AS new_tat FROM grants g CROSS JOIN p),"
                + " taken AS (UPDATE " + d + " d SET tat_micros = a.new_tat FROM next_tat a"
                + " WHERE d.name = a.name AND a.granted > 0 RETURNING d.name),"
                + " outcome AS (SELECT r.id, CASE WHEN NOT r.startable THEN 'claimed'"
                + " WHEN a.enabled <> 1 THEN 'disabled' WHEN r.nth <= a.granted THEN 'proceed' ELSE 'later' END"
                + " AS outcome, GREATEST(1, GREATEST(a.new_tat, p.p_now) - p.p_now - (a.burst - 1) * a.interval_micros)"
                + " AS wait_micros FROM ranked r LEFT JOIN next_tat a ON a.name = r.destination CROSS JOIN p),"
                + " leased AS (UPDATE " + l + " l SET"
                + " state = CASE WHEN o.outcome = 'later' THEN 'pending' ELSE 'in_flight' END,"
                + " lease_owner = CASE WHEN o.outcome = 'later' THEN NULL ELSE p.p_owner END,"
                + " lease_token = CASE WHEN o.outcome = 'later' THEN NULL ELSE p.p_token END,"
                + " lease_expires_micros = CASE WHEN o.outcome = 'later' THEN NULL ELSE p.p_until END,"
                + " eligible_micros = CASE WHEN o.outcome = 'later' THEN p.p_now + o.wait_micros"
                + " ELSE l.eligible_micros END,"
                + " visible_micros = CASE WHEN o.outcome = 'later' THEN p.p_now + o.wait_micros ELSE p.p_until END,"
                + " sending = CASE WHEN o.outcome = 'proceed' THEN 1 ELSE 0 END, updated_micros = p.p_now"
                + " FROM outcome o, p WHERE l.id = o.id RETURNING l.id)"
                + " SELECT r.*, o.outcome, o.wait_micros, set_config('synchronous_commit', CASE WHEN"
                + " (SELECT bool_and(idempotent = 1) FROM picked) THEN 'off'"
                + " ELSE current_setting('synchronous_commit') END, true) AS commit_mode"
                + " FROM ranked r JOIN outcome o ON o.id = r.id ORDER BY r.visible_micros, r.id";
        List<ClaimedStart> out = new ArrayList<>(max);
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setLong(1, nowMicros);
            ps.setString(2, owner);
            ps.setString(3, token);
            ps.setLong(4, leaseUntil);
            ps.setLong(5, nowMicros);
            ps.setInt(6, max);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Claim claim = claimFrom(rs, owner, token);
                    Optional<AttemptStart> start = switch (rs.getString("outcome")) {
                        case "claimed" -> Optional.empty();
                        case "proceed" -> Optional.of(new AttemptStart.Proceed());
                        case "disabled" -> Optional.of(new AttemptStart.DestinationDisabled());
                        case "later" -> {
                            long wait = rs.getLong("wait_micros");
                            yield Optional.of(new AttemptStart.NoToken(Duration.ofNanos(wait * 1_000),
                                    Micros.toInstant(nowMicros + wait)));
                        }
                        default -> throw new SQLException("unknown claim outcome " + rs.getString("outcome"));
                    };
                    out.add(new ClaimedStart(claim, start));
                }
            }
        }
        return out;
    }

    /** A claim from a row with the ledger's, the event's and the destination's claim columns. */
    private static Claim claimFrom(ResultSet rs, String owner, String token) throws SQLException {
        var event = Rows.event(rs);
        return new Claim(rs.getLong("id"), event, DestinationBucket.destination(rs, event.destination()),
                rs.getInt("attempts"), Micros.toInstant(rs.getLong("eligible_micros")),
                Micros.toInstant(rs.getLong("expires_micros")), ResponseClass.fromDb(rs.getString("last_class")),
                Rows.nullableInt(rs, "last_status"), rs.getString("last_error"), rs.getInt("sending") == 1, owner,
                token);
    }

    /**
     * Puts back started claims whose requests were never sent (see {@code DeliveryStore#putBack}):
     * pending, visible at their eligible time, no longer sending, fenced by each lease token.
     *
     * @return how many rows were put back
     */
    int putBack(Connection c, List<Claim> claims, long nowMicros) throws SQLException {
        if (claims.isEmpty()) {
            return 0;
        }
        int n = 0;
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'pending',"
                + " visible_micros = eligible_micros, lease_owner = NULL, lease_token = NULL,"
                + " lease_expires_micros = NULL, sending = 0, updated_micros = ?"
                + " WHERE id = ? AND lease_token = ? AND state = 'in_flight'")) {
            for (Claim claim : claims) {
                ps.setLong(1, nowMicros);
                ps.setLong(2, claim.ledgerId());
                ps.setString(3, claim.leaseToken());
                ps.addBatch();
            }
            for (int count : ps.executeBatch()) {
                n += count == Statement.SUCCESS_NO_INFO ? 1 : count;
            }
        }
        return n;
    }

    /** Extends every lease {@code owner} holds; returns how many. */
    int heartbeat(Connection c, String owner, long untilMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET lease_expires_micros = ?,"
                + " visible_micros = ? WHERE lease_owner = ? AND state = 'in_flight'")) {
            ps.setLong(1, untilMicros);
            ps.setLong(2, untilMicros);
            ps.setString(3, owner);
            return ps.executeUpdate();
        }
    }

    /**
     * The three steps before a request: the ledger (still ours? mark it as sending), one token from
     * the destination's bucket, and without one the row is rescheduled to the next token.
     */
    AttemptStart startAttempt(Connection c, Claim claim, long nowMicros) throws SQLException {
        // 1. the ledger, fenced by the lease: mark the row as sending while it is still ours
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET sending = 1,"
                + " updated_micros = ? WHERE id = ? AND lease_token = ? AND state = 'in_flight'")) {
            ps.setLong(1, nowMicros);
            ps.setLong(2, claim.ledgerId());
            ps.setString(3, claim.leaseToken());
            if (ps.executeUpdate() == 0) {
                // not ours any more: delivered meanwhile (suppress), or another worker holds it
                return state(c, claim.ledgerId()) == LedgerState.DELIVERED ? new AttemptStart.Suppressed()
                        : new AttemptStart.LeaseLost();
            }
        }
        // 2. one token from the destination's bucket; 3. none, or disabled: undo the mark
        return switch (destinations.take(c, claim.destination().name(), nowMicros)) {
            case DestinationBucket.Take.Granted g -> new AttemptStart.Proceed();
            case DestinationBucket.Take.Disabled d -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET sending = 0"
                        + " WHERE id = ? AND lease_token = ?")) {
                    ps.setLong(1, claim.ledgerId());
                    ps.setString(2, claim.leaseToken());
                    ps.executeUpdate();
                }
                yield new AttemptStart.DestinationDisabled();
            }
            case DestinationBucket.Take.Wait w -> {
                long eligible = nowMicros + w.waitMicros();
                reschedule(c, claim, eligible, nowMicros);
                yield new AttemptStart.NoToken(Duration.ofNanos(w.waitMicros() * 1_000), Micros.toInstant(eligible));
            }
        };
    }

    /**
     * {@link #startAttempt} for a batch of claims at one {@code nowMicros}, with the same outcome
     * as taking them one by one in order: the ledger marks in one JDBC batch, then per destination
     * the tokens in one batch ({@link DestinationBucket#grant}); the first claims get the tokens,
     * the rest are rescheduled to the next token.
     *
     * @return one answer per claim, in order
     */
    List<AttemptStart> startAttempts(Connection c, List<Claim> claims, long nowMicros) throws SQLException {
        AttemptStart[] out = new AttemptStart[claims.size()];
        int[] marked;
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET sending = 1,"
                + " updated_micros = ? WHERE id = ? AND lease_token = ? AND state = 'in_flight'")) {
            for (Claim claim : claims) {
                ps.setLong(1, nowMicros);
                ps.setLong(2, claim.ledgerId());
                ps.setString(3, claim.leaseToken());
                ps.addBatch();
            }
            marked = ps.executeBatch();
        }
        java.util.Map<String, List<Integer>> byDestination = new java.util.LinkedHashMap<>();
        for (int i = 0; i < out.length; i++) {
            if (marked[i] == 0) {
                out[i] = state(c, claims.get(i).ledgerId()) == LedgerState.DELIVERED ? new AttemptStart.Suppressed()
                        : new AttemptStart.LeaseLost();
            } else {
                byDestination.computeIfAbsent(claims.get(i).destination().name(), k -> new ArrayList<>()).add(i);
            }
        }
        List<Claim> disabled = new ArrayList<>();
        List<Claim> later = new ArrayList<>();
        List<Long> laterEligible = new ArrayList<>();
        for (var e : byDestination.entrySet()) {
            List<Integer> idx = e.getValue();
            DestinationBucket.Grant g = destinations.grant(c, e.getKey(), idx.size(), nowMicros);
            for (int j = 0; j < idx.size(); j++) {
                int i = idx.get(j);
                if (g.disabled()) {
                    out[i] = new AttemptStart.DestinationDisabled();
                    disabled.add(claims.get(i));
                } else if (j < g.granted()) {
                    out[i] = new AttemptStart.Proceed();
                } else {
                    long eligible = nowMicros + g.waitMicros();
                    out[i] = new AttemptStart.NoToken(Duration.ofNanos(g.waitMicros() * 1_000), Micros.toInstant(eligible));
                    later.add(claims.get(i));
                    laterEligible.add(eligible);
                }
            }
        }
        if (!disabled.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET sending = 0"
                    + " WHERE id = ? AND lease_token = ?")) {
                for (Claim claim : disabled) {
                    ps.setLong(1, claim.ledgerId());
                    ps.setString(2, claim.leaseToken());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
        if (!later.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(rescheduleSql())) {
                for (int k = 0; k < later.size(); k++) {
                    bindReschedule(ps, later.get(k), laterEligible.get(k), nowMicros);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
        }
        return List.of(out);
    }

    private LedgerState state(Connection c, long ledgerId) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT state FROM " + t.ledger() + " WHERE id = ?")) {
            q.setLong(1, ledgerId);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? LedgerState.fromDb(rs.getString(1)) : null;
            }
        }
    }

    private void reschedule(Connection c, Claim claim, long eligibleMicros, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(rescheduleSql())) {
            bindReschedule(ps, claim, eligibleMicros, nowMicros);
            ps.executeUpdate();
        }
    }

    private String rescheduleSql() {
        return "UPDATE " + t.ledger() + " SET state = 'pending',"
                + " eligible_micros = ?, visible_micros = ?, lease_owner = NULL, lease_token = NULL,"
                + " lease_expires_micros = NULL, sending = 0, updated_micros = ? WHERE id = ? AND lease_token = ?";
    }

    private static void bindReschedule(PreparedStatement ps, Claim claim, long eligibleMicros, long nowMicros)
            throws SQLException {
        ps.setLong(1, eligibleMicros);
        ps.setLong(2, eligibleMicros);
        ps.setLong(3, nowMicros);
        ps.setLong(4, claim.ledgerId());
        ps.setString(5, claim.leaseToken());
    }

    /**
     * Records a completion in the ledger row and releases the claim (the dead letter of a
     * {@link Completion.Dead} is the caller's to write). Fenced by the lease token, except a
     * delivery, which is recorded unless the row is delivered already.
     *
     * @return {@code false} when nothing was written
     */
    boolean finish(Connection c, Claim claim, Completion completion) throws SQLException {
        long at = Micros.of(completion.at());
        int plus = completion.attempted() ? 1 : 0;
        switch (completion) {
            case Completion.Delivered d -> {
                try (PreparedStatement ps = c.prepareStatement(deliveredSql())) {
                    bindDelivered(ps, claim, d);
                    return ps.executeUpdate() == 1;
                }
            }
            case Completion.Retry r -> {
                long eligible = Micros.ceil(r.eligibleAt());
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'pending',"
                        + " attempts = attempts + ?, last_class = ?, last_status = ?, last_error = ?,"
                        + " eligible_micros = ?, visible_micros = ?, lease_owner = NULL, lease_token = NULL,"
                        + " lease_expires_micros = NULL, sending = 0, updated_micros = ?"
                        + " WHERE id = ? AND lease_token = ?")) {
                    ps.setInt(1, plus);
                    ps.setString(2, r.responseClass().dbValue());
                    Rows.setNullableInt(ps, 3, r.status());
                    ps.setString(4, Rows.clip(r.error()));
                    ps.setLong(5, eligible);
                    ps.setLong(6, eligible);
                    ps.setLong(7, at);
                    ps.setLong(8, claim.ledgerId());
                    ps.setString(9, claim.leaseToken());
                    return ps.executeUpdate() == 1;
                }
            }
            case Completion.Review r -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'review',"
                        + " attempts = attempts + ?, last_class = ?, last_status = ?, last_error = ?,"
                        + " lease_owner = NULL, lease_token = NULL, lease_expires_micros = NULL, sending = 0,"
                        + " updated_micros = ? WHERE id = ? AND lease_token = ?")) {
                    ps.setInt(1, plus);
                    ps.setString(2, r.responseClass() == null ? null : r.responseClass().dbValue());
                    Rows.setNullableInt(ps, 3, r.status());
                    ps.setString(4, Rows.clip(r.error()));
                    ps.setLong(5, at);
                    ps.setLong(6, claim.ledgerId());
                    ps.setString(7, claim.leaseToken());
                    return ps.executeUpdate() == 1;
                }
            }
            case Completion.Dead d -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'dead',"
                        + " attempts = attempts + ?, last_class = COALESCE(?, last_class),"
                        + " last_status = COALESCE(?, last_status), last_error = COALESCE(?, last_error),"
                        + " lease_owner = NULL, lease_token = NULL, lease_expires_micros = NULL, sending = 0,"
                        + " updated_micros = ? WHERE id = ? AND lease_token = ?")) {
                    ps.setInt(1, plus);
                    ps.setString(2, d.responseClass() == null ? null : d.responseClass().dbValue());
                    Rows.setNullableInt(ps, 3, d.status());
                    ps.setString(4, Rows.clip(d.error()));
                    ps.setLong(5, at);
                    ps.setLong(6, claim.ledgerId());
                    ps.setString(7, claim.leaseToken());
                    return ps.executeUpdate() == 1;
                }
            }
        }
    }

    /**
     * The statement of {@link #finish} for a {@link Completion.Delivered} (recorded unless the row
     * is delivered already), apart so that completions can share one JDBC batch.
     */
    String deliveredSql() {
        return "UPDATE " + t.ledger() + " SET state = 'delivered',"
                + " attempts = attempts + 1, last_class = 'success', last_status = ?, last_error = NULL,"
                + " delivered_micros = ?, lease_owner = NULL, lease_token = NULL, lease_expires_micros = NULL,"
                + " sending = 0, updated_micros = ? WHERE id = ? AND state <> 'delivered'";
    }

    static void bindDelivered(PreparedStatement ps, Claim claim, Completion.Delivered d) throws SQLException {
        long at = Micros.of(d.at());
        ps.setInt(1, d.status());
        ps.setLong(2, at);
        ps.setLong(3, at);
        ps.setLong(4, claim.ledgerId());
    }

    /** Puts back {@code owner}'s claimed rows that are not sending; returns how many. */
    int release(Connection c, String owner, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'pending',"
                + " visible_micros = eligible_micros, lease_owner = NULL, lease_token = NULL,"
                + " lease_expires_micros = NULL, updated_micros = ?"
                + " WHERE lease_owner = ? AND state = 'in_flight' AND sending = 0")) {
            ps.setLong(1, nowMicros);
            ps.setString(2, owner);
            return ps.executeUpdate();
        }
    }

    /** Makes a row pending again, eligible now, whoever held it (replay, review retry). */
    void requeue(Connection c, long ledgerId, long nowMicros, long expiresMicros, boolean resetAttempts)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'pending',"
                + (resetAttempts ? " attempts = 0," : "")
                + " eligible_micros = ?, visible_micros = ?, expires_micros = ?, lease_owner = NULL, lease_token = NULL,"
                + " lease_expires_micros = NULL, sending = 0, updated_micros = ? WHERE id = ?")) {
            ps.setLong(1, nowMicros);
            ps.setLong(2, nowMicros);
            ps.setLong(3, expiresMicros);
            ps.setLong(4, nowMicros);
            ps.setLong(5, ledgerId);
            ps.executeUpdate();
        }
    }

    /** A person's verdict on a row in review: delivered after all. */
    void resolveDelivered(Connection c, long ledgerId, String note, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'delivered',"
                + " delivered_micros = ?, last_error = ?, updated_micros = ? WHERE id = ?")) {
            ps.setLong(1, nowMicros);
            ps.setString(2, note);
            ps.setLong(3, nowMicros);
            ps.setLong(4, ledgerId);
            ps.executeUpdate();
        }
    }

    /** A person's verdict on a row in review: dead (the dead letter is written by the caller). */
    void resolveDead(Connection c, long ledgerId, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'dead',"
                + " updated_micros = ? WHERE id = ?")) {
            ps.setLong(1, nowMicros);
            ps.setLong(2, ledgerId);
            ps.executeUpdate();
        }
    }
}
