package dev.sluice.delivery.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.delivery.DeadLetter;
import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.DestinationState;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.NoStoreException;
import dev.sluice.delivery.NoSuchEntryException;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.ReplayRefusedException;
import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.ReviewResolution;
import dev.sluice.delivery.StoreException;
import dev.sluice.delivery.UnknownDestinationException;
import dev.sluice.delivery.config.Durations;
import dev.sluice.delivery.spi.AttemptStart;
import dev.sluice.delivery.spi.Claim;
import dev.sluice.delivery.spi.Completion;
import dev.sluice.delivery.spi.DeliveryStore;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * The JDBC {@link DeliveryStore} for SQLite (embedded, the default) and PostgreSQL (many workers),
 * SPEC §6.8.
 *
 * <ul>
 *   <li><b>SQLite</b>: one file, WAL journal, {@code synchronous=FULL} by default (a committed
 *       enqueue survives power loss, not only a process crash), every write transaction begun
 *       {@code IMMEDIATE} so writers queue on the file lock instead of failing on upgrade, and
 *       the attempt path's writes group-committed (one flush for every write queued meanwhile).
 *       One writer at a time: it is a single-node store; prefer one worker with more concurrency
 *       to several workers on one file, and use PostgreSQL for replicas.</li>
 *   <li><b>PostgreSQL</b>: claims lock rows with {@code FOR UPDATE SKIP LOCKED}, so replicas never
 *       claim the same row (SPEC §6.7); an optional schema keeps Sluice's tables apart.</li>
 * </ul>
 * The destination's token bucket is a GCRA row (one theoretical arrival time) updated by one
 * conditional {@code UPDATE}, so every worker sharing the store shares the bucket.
 *
 * <p>Schema: plain versioned SQL applied at {@link #open} (see {@code Migrations}). Thread-safe:
 * connections come from a HikariCP pool.
 */
public final class JdbcDeliveryStore implements DeliveryStore {

    /**
     * Connection settings.
     *
     * @param schema PostgreSQL schema for the tables (created if missing), or {@code null} for
     *     the connection's default; must be {@code null} for SQLite
     * @param poolSize connections in the pool (a worker uses about concurrency + 2)
     * @param sqliteSynchronous SQLite's {@code synchronous} pragma: {@code FULL} (default) or
     *     {@code NORMAL} (faster; in WAL mode still safe against a process crash, but a power
     *     loss may drop the last commits)
     * @param sqliteBusyTimeout how long a SQLite connection waits for another process's write lock
     *     before the operation fails with a "locked" {@link StoreException} (default 30 s)
     */
    public record Options(String schema, int poolSize, String sqliteSynchronous, Duration sqliteBusyTimeout) {
        public Options {
            if (poolSize < 1) {
                throw new IllegalArgumentException("poolSize must be >= 1: " + poolSize);
            }
            if (!"FULL".equals(sqliteSynchronous) && !"NORMAL".equals(sqliteSynchronous)) {
                throw new IllegalArgumentException("sqliteSynchronous must be FULL or NORMAL: " + sqliteSynchronous);
            }
            Objects.requireNonNull(sqliteBusyTimeout, "sqliteBusyTimeout");
            if (sqliteBusyTimeout.isNegative() || sqliteBusyTimeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("sqliteBusyTimeout out of range: " + sqliteBusyTimeout);
            }
        }

        /** Default schema, 12 connections, FULL, a 30 s busy timeout. */
        public static Options defaults() {
            return new Options(null, 12, "FULL", DEFAULT_SQLITE_BUSY_TIMEOUT);
        }

        public Options withSchema(String s) {
            return new Options(s, poolSize, sqliteSynchronous, sqliteBusyTimeout);
        }

        public Options withPoolSize(int n) {
            return new Options(schema, n, sqliteSynchronous, sqliteBusyTimeout);
        }

        public Options withSqliteSynchronous(String mode) {
            return new Options(schema, poolSize, mode, sqliteBusyTimeout);
        }

        public Options withSqliteBusyTimeout(Duration d) {
            return new Options(schema, poolSize, sqliteSynchronous, d);
        }
    }

    private static final int TX_TRIES = 8;

    private final HikariDataSource ds;
    private final Dialect dialect;
    private final Tables t;
    private final String schema;
    private final String ledgerColumns;
    private final String ledgerFrom;
    private final GroupCommit groupCommit;
    private final Path sqliteFile;
    private final Duration busyTimeout;

    private JdbcDeliveryStore(HikariDataSource ds, Dialect dialect, String schema, Path sqliteFile,
            Duration busyTimeout) {
        this.sqliteFile = sqliteFile;
        this.busyTimeout = busyTimeout;
        this.ds = ds;
        this.dialect = dialect;
        this.schema = schema;
        this.t = Tables.in(schema);
        this.ledgerColumns = "l.id, l.state, l.attempts, l.last_class, l.last_status, l.last_error,"
                + " l.eligible_micros, l.expires_micros, l.lease_owner, l.lease_expires_micros, l.updated_micros,"
                + " l.delivered_micros, e.event_id, e.destination, e.event_type, e.idempotency_key, e.payload,"
                + " e.created_micros";
        this.ledgerFrom = " FROM " + t.ledger() + " l JOIN " + t.event() + " e ON e.id = l.id";
        this.groupCommit = dialect == Dialect.SQLITE ? new GroupCommit() : null;
    }

    /**
     * Opens (and creates or migrates) the store at {@code location} with default options.
     *
     * @param location {@code sqlite:PATH} or a {@code jdbc:postgresql:} URL
     * @throws IllegalArgumentException if the location is malformed
     * @throws StoreException if the database cannot be reached or migrated
     */
    public static JdbcDeliveryStore open(String location) {
        return open(location, Options.defaults());
    }

    /**
     * Opens (and creates or migrates) the store at {@code location}.
     *
     * @throws IllegalArgumentException if the location or options are malformed
     * @throws StoreException if the database cannot be reached or migrated
     */
    public static JdbcDeliveryStore open(String location, Options options) {
        return open(location, options, true);
    }

    /**
     * Opens an existing store for inspection and repair (status, listings, replay), never creating
     * one: a missing SQLite file, or a database without Sluice's tables, is a
     * {@link NoStoreException} and leaves nothing behind. An existing store of an older schema
     * version is migrated as by {@link #open(String, Options)}.
     *
     * @throws IllegalArgumentException if the location or options are malformed
     * @throws NoStoreException if there is no store at {@code location}
     * @throws StoreException if the database cannot be reached or migrated
     */
    public static JdbcDeliveryStore openExisting(String location, Options options) {
        return open(location, options, false);
    }

    private static JdbcDeliveryStore open(String location, Options options, boolean create) {
        StoreLocation where = StoreLocation.parse(location);
        if (!create && where.dialect() == Dialect.SQLITE) {
            Path file = where.sqlitePath();
            try {
                if (!Files.isRegularFile(file) || Files.size(file) == 0) {
                    throw new NoStoreException(file.toString(), null);
                }
            } catch (java.io.IOException e) {
                throw new NoStoreException(file.toString(), e.getMessage());
            }
        }
        HikariConfig hc = new HikariConfig();
        hc.setMaximumPoolSize(options.poolSize());
        hc.setMinimumIdle(1);
        hc.setPoolName("sluice-delivery-" + where.dialect().name().toLowerCase(java.util.Locale.ROOT));
        hc.setInitializationFailTimeout(-1); // report failures from the first use, with our message
        if (where.dialect() == Dialect.SQLITE) {
            if (options.schema() != null) {
                throw new IllegalArgumentException("a SQLite store has no schemas: drop the schema option");
            }
            try {
                Path parent = where.sqlitePath().toAbsolutePath().getParent();
                if (create && parent != null) {
                    Files.createDirectories(parent);
                }
            } catch (java.io.IOException e) {
                throw new StoreException("cannot create the folder of " + where.sqlitePath(), e);
            }
            SQLiteConfig cfg = new SQLiteConfig();
            cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
            cfg.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(options.sqliteSynchronous()));
            cfg.setBusyTimeout((int) options.sqliteBusyTimeout().toMillis());
            cfg.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
            cfg.enforceForeignKeys(true);
            SQLiteDataSource sqlite = new SQLiteDataSource(cfg);
            sqlite.setUrl(where.jdbcUrl());
            hc.setDataSource(sqlite);
        } else {
            hc.setJdbcUrl(where.jdbcUrl());
        }
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(hc);
        } catch (RuntimeException e) {
            throw new StoreException("cannot open the delivery store at " + redact(location) + ": " + e.getMessage(), e);
        }
        try {
            if (!create && !hasTables(ds, where.dialect(), options.schema())) {
                throw new NoStoreException(where.dialect() == Dialect.SQLITE ? where.sqlitePath().toString()
                        : redact(location), where.dialect() == Dialect.SQLITE ? "the file has no Sluice tables"
                        : "no Sluice tables in " + (options.schema() == null ? "the default schema"
                                : "schema " + options.schema()));
            }
            Migrations.apply(ds, where.dialect(), Tables.in(options.schema()), options.schema());
        } catch (RuntimeException e) {
            ds.close();
            if (e instanceof NoStoreException) {
                throw e;
            }
            if (where.dialect() == Dialect.SQLITE && isBusy(e)) {
                throw locked(where.sqlitePath(), options.sqliteBusyTimeout(), "open", e);
            }
            throw e instanceof StoreException se ? se
                    : new StoreException("cannot open the delivery store at " + redact(location), e);
        }
        return new JdbcDeliveryStore(ds, where.dialect(), options.schema(), where.sqlitePath(),
                options.sqliteBusyTimeout());
    }

    /** Whether the schema-version table exists (read only: creates nothing). */
    private static boolean hasTables(HikariDataSource ds, Dialect dialect, String schema) {
        String sql = dialect == Dialect.SQLITE
                ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sluice_schema_version'"
                : "SELECT count(*) FROM information_schema.tables WHERE table_name = 'sluice_schema_version'"
                        + " AND table_schema = " + (schema == null ? "current_schema()" : "?");
        try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
            if (dialect == Dialect.POSTGRESQL && schema != null) {
                ps.setString(1, schema);
            }
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read the delivery store: " + e.getMessage(), e);
        }
    }

    private static String redact(String location) {
        return location.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    /** Which store this is. */
    public Dialect dialect() {
        return dialect;
    }

    /** The PostgreSQL schema, or {@code null}. */
    public String schema() {
        return schema;
    }

    // ---------------------------------------------------------------------------------------------
    // destinations

    @Override
    public void upsertDestination(Destination d, Instant now) {
        tx("register destination", c -> {
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
                ps.setLong(7, Micros.of(now));
                ps.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public boolean enableDestination(String name, Instant now) {
        return tx("enable destination", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.destination()
                    + " SET enabled = 1, disabled_reason = NULL, updated_micros = ? WHERE name = ?")) {
                ps.setLong(1, Micros.of(now));
                ps.setString(2, name);
                return ps.executeUpdate() == 1;
            }
        });
    }

    @Override
    public List<DestinationState> destinations() {
        return read("list destinations", c -> {
            List<DestinationState> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT name, url, secret, idempotent, interval_micros,"
                    + " burst, enabled, disabled_reason, updated_micros FROM " + t.destination() + " ORDER BY name");
                    ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    double perSecond = 1_000_000.0 / rs.getLong("interval_micros");
                    Destination d = new Destination(rs.getString("name"), URI.create(rs.getString("url")),
                            new Rate(perSecond, rs.getInt("burst")), rs.getString("secret"),
                            rs.getInt("idempotent") == 1);
                    out.add(new DestinationState(d, rs.getInt("enabled") == 1, rs.getString("disabled_reason"),
                            Micros.toInstant(rs.getLong("updated_micros"))));
                }
            }
            return out;
        });
    }

    // ---------------------------------------------------------------------------------------------
    // outbox

    @Override
    public EnqueueResult enqueue(Event event, Instant expiresAt) {
        return tx("enqueue", c -> enqueueOn(c, event, expiresAt));
    }

    /**
     * The outbox write on the caller's own connection and transaction (SPEC §6.4): the event and
     * its ledger row commit or roll back with the caller's business write. This method neither
     * commits nor rolls back; the connection must reach this store's database (and schema).
     *
     * @param connection the caller's connection, normally with auto-commit off
     * @param event the event
     * @param expiresAt when its maximum age runs out
     * @throws UnknownDestinationException if the destination is not registered
     * @throws StoreException if a statement fails (the caller should roll back)
     */
    public EnqueueResult enqueue(Connection connection, Event event, Instant expiresAt) {
        Objects.requireNonNull(connection, "connection");
        try {
            return enqueueOn(connection, event, expiresAt);
        } catch (SQLException e) {
            throw new StoreException("enqueue failed: " + e.getMessage(), e);
        }
    }

    private EnqueueResult enqueueOn(Connection c, Event e, Instant expiresAt) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + t.destination() + " WHERE name = ?")) {
            ps.setString(1, e.destination());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new UnknownDestinationException(e.destination());
                }
            }
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
        LedgerEntry existing = selectEntry(c, "e.destination = ? AND e.idempotency_key = ?",
                ps -> {
                    ps.setString(1, e.destination());
                    ps.setString(2, e.idempotencyKey());
                }).orElseThrow(() -> new StoreException("event row without ledger row: " + e.idempotencyKey()));
        EnqueueResult.Outcome outcome = switch (existing.state()) {
            case PENDING, IN_FLIGHT -> EnqueueResult.Outcome.ALREADY_QUEUED;
            case DELIVERED -> EnqueueResult.Outcome.SUPPRESSED_DELIVERED;
            case DEAD -> EnqueueResult.Outcome.ALREADY_DEAD;
            case REVIEW -> EnqueueResult.Outcome.IN_REVIEW;
        };
        return new EnqueueResult(existing.ledgerId(), existing.event(), outcome);
    }

    // ---------------------------------------------------------------------------------------------
    // claims and attempts

    @Override
    public List<Claim> claim(String owner, int max, Instant now, Duration lease) {
        if (max < 1) {
            return List.of();
        }
        long nowMicros = Micros.of(now);
        long leaseUntil = Micros.of(now.plus(lease));
        String token = UUID.randomUUID().toString();
        return tx("claim", c -> {
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
                        Event event = new Event(rs.getString("event_id"), rs.getString("destination"),
                                rs.getString("event_type"), rs.getString("idempotency_key"), rs.getString("payload"),
                                Micros.toInstant(rs.getLong("created_micros")));
                        Destination d = new Destination(event.destination(), URI.create(rs.getString("url")),
                                new Rate(1_000_000.0 / rs.getLong("interval_micros"), rs.getInt("burst")),
                                rs.getString("secret"), rs.getInt("idempotent") == 1);
                        claims.add(new Claim(rs.getLong("id"), event, d, rs.getInt("attempts"),
                                Micros.toInstant(rs.getLong("eligible_micros")),
                                Micros.toInstant(rs.getLong("expires_micros")),
                                ResponseClass.fromDb(rs.getString("last_class")), nullableInt(rs, "last_status"),
                                rs.getString("last_error"), rs.getInt("sending") == 1, owner, token));
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
        });
    }

    @Override
    public int heartbeat(String owner, Instant leaseExpiresAt) {
        long until = Micros.of(leaseExpiresAt);
        return tx("heartbeat", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET lease_expires_micros = ?,"
                    + " visible_micros = ? WHERE lease_owner = ? AND state = 'in_flight'")) {
                ps.setLong(1, until);
                ps.setLong(2, until);
                ps.setString(3, owner);
                return ps.executeUpdate();
            }
        });
    }

    @Override
    public AttemptStart startAttempt(Claim claim, Instant now) {
        return write("start attempt", c -> {
            if (dialect == Dialect.POSTGRESQL && claim.destination().idempotent()) {
                // Nothing here must survive a database crash: a lost token is a token refunded, and a
                // lost 'sending' mark only matters to destinations that cannot deduplicate. Not
                // waiting for the WAL flush keeps the destination's bucket row locked for
                // microseconds instead of a disk flush, which is what lets replicas scale.
                try (Statement s = c.createStatement()) {
                    s.execute("SET LOCAL synchronous_commit = off");
                }
            }
            return startAttemptOn(c, claim, Micros.of(now));
        });
    }

    /**
     * The three steps of {@link #startAttempt}. Never rolls back by itself, so that SQLite's group
     * commit can run several of them in one transaction.
     */
    private AttemptStart startAttemptOn(Connection c, Claim claim, long nowMicros) throws SQLException {
        // 1. the ledger, fenced by the lease: mark the row as sending while it is still ours
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET sending = 1,"
                + " updated_micros = ? WHERE id = ? AND lease_token = ? AND state = 'in_flight'")) {
            ps.setLong(1, nowMicros);
            ps.setLong(2, claim.ledgerId());
            ps.setString(3, claim.leaseToken());
            if (ps.executeUpdate() == 0) {
                // not ours any more: delivered meanwhile (suppress), or another worker holds it
                try (PreparedStatement q = c.prepareStatement("SELECT state FROM " + t.ledger() + " WHERE id = ?")) {
                    q.setLong(1, claim.ledgerId());
                    try (ResultSet rs = q.executeQuery()) {
                        boolean delivered = rs.next() && LedgerState.fromDb(rs.getString(1)) == LedgerState.DELIVERED;
                        return delivered ? new AttemptStart.Suppressed() : new AttemptStart.LeaseLost();
                    }
                }
            }
        }
        // 2. one token from the destination's bucket (GCRA: allow when max(tat, now) - now <= (burst - 1) * T)
        String g = dialect.greatest();
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.destination() + " SET tat_micros = "
                + g + "(tat_micros, ?) + interval_micros WHERE name = ? AND enabled = 1 AND "
                + g + "(tat_micros, ?) - ? <= (burst - 1) * interval_micros")) {
            ps.setLong(1, nowMicros);
            ps.setString(2, claim.destination().name());
            ps.setLong(3, nowMicros);
            ps.setLong(4, nowMicros);
            if (ps.executeUpdate() == 1) {
                return new AttemptStart.Proceed();
            }
        }
        // 3. no token, or the destination is disabled: undo the mark, reschedule or report
        long tat;
        long interval;
        int burst;
        boolean enabled;
        try (PreparedStatement ps = c.prepareStatement("SELECT tat_micros, interval_micros, burst, enabled FROM "
                + t.destination() + " WHERE name = ?")) {
            ps.setString(1, claim.destination().name());
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    tat = rs.getLong(1);
                    interval = rs.getLong(2);
                    burst = rs.getInt(3);
                    enabled = rs.getInt(4) == 1;
                } else {
                    tat = 0;
                    interval = 1;
                    burst = 1;
                    enabled = false;
                }
            }
        }
        if (!enabled) {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET sending = 0"
                    + " WHERE id = ? AND lease_token = ?")) {
                ps.setLong(1, claim.ledgerId());
                ps.setString(2, claim.leaseToken());
                ps.executeUpdate();
            }
            return new AttemptStart.DestinationDisabled();
        }
        long waitMicros = Math.max(1L, Math.max(tat, nowMicros) - nowMicros - (burst - 1L) * interval);
        long eligible = nowMicros + waitMicros;
        reschedule(c, claim, eligible, nowMicros);
        return new AttemptStart.NoToken(Duration.ofNanos(waitMicros * 1_000), Micros.toInstant(eligible));
    }

    private int reschedule(Connection c, Claim claim, long eligibleMicros, long nowMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'pending',"
                + " eligible_micros = ?, visible_micros = ?, lease_owner = NULL, lease_token = NULL,"
                + " lease_expires_micros = NULL, sending = 0, updated_micros = ? WHERE id = ? AND lease_token = ?")) {
            ps.setLong(1, eligibleMicros);
            ps.setLong(2, eligibleMicros);
            ps.setLong(3, nowMicros);
            ps.setLong(4, claim.ledgerId());
            ps.setString(5, claim.leaseToken());
            return ps.executeUpdate();
        }
    }

    @Override
    public boolean finish(Claim claim, Completion completion) {
        long at = Micros.of(completion.at());
        int plus = completion.attempted() ? 1 : 0;
        return write("finish attempt", c -> switch (completion) {
            case Completion.Delivered d -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'delivered',"
                        + " attempts = attempts + 1, last_class = 'success', last_status = ?, last_error = NULL,"
                        + " delivered_micros = ?, lease_owner = NULL, lease_token = NULL, lease_expires_micros = NULL,"
                        + " sending = 0, updated_micros = ? WHERE id = ? AND state <> 'delivered'")) {
                    ps.setInt(1, d.status());
                    ps.setLong(2, at);
                    ps.setLong(3, at);
                    ps.setLong(4, claim.ledgerId());
                    yield ps.executeUpdate() == 1;
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
                    setNullableInt(ps, 3, r.status());
                    ps.setString(4, clip(r.error()));
                    ps.setLong(5, eligible);
                    ps.setLong(6, eligible);
                    ps.setLong(7, at);
                    ps.setLong(8, claim.ledgerId());
                    ps.setString(9, claim.leaseToken());
                    yield ps.executeUpdate() == 1;
                }
            }
            case Completion.Review r -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'review',"
                        + " attempts = attempts + ?, last_class = ?, last_status = ?, last_error = ?,"
                        + " lease_owner = NULL, lease_token = NULL, lease_expires_micros = NULL, sending = 0,"
                        + " updated_micros = ? WHERE id = ? AND lease_token = ?")) {
                    ps.setInt(1, plus);
                    ps.setString(2, r.responseClass() == null ? null : r.responseClass().dbValue());
                    setNullableInt(ps, 3, r.status());
                    ps.setString(4, clip(r.error()));
                    ps.setLong(5, at);
                    ps.setLong(6, claim.ledgerId());
                    ps.setString(7, claim.leaseToken());
                    yield ps.executeUpdate() == 1;
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
                    setNullableInt(ps, 3, d.status());
                    ps.setString(4, clip(d.error()));
                    ps.setLong(5, at);
                    ps.setLong(6, claim.ledgerId());
                    ps.setString(7, claim.leaseToken());
                    if (ps.executeUpdate() == 0) {
                        yield false;
                    }
                }
                insertDeadLetter(c, claim.ledgerId(), d.reason(), d.redactedPayload(), at);
                if (d.disableDestination()) {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.destination() + " SET enabled = 0,"
                            + " disabled_reason = ?, updated_micros = ? WHERE name = ?")) {
                        ps.setString(1, "410 Gone answered for " + claim.event().idempotencyKey());
                        ps.setLong(2, at);
                        ps.setString(3, claim.destination().name());
                        ps.executeUpdate();
                    }
                }
                yield true;
            }
        });
    }

    /** Copies the ledger row's final state (after its update) into a new dead-letter record. */
    private void insertDeadLetter(Connection c, long ledgerId, DeadLetterReason reason, String redactedPayload,
            long atMicros) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t.deadLetter()
                + " (ledger_id, event_id, destination, idempotency_key, event_type, reason, final_class, final_status,"
                + " attempts, last_error, redacted_payload, dead_micros)"
                + " SELECT l.id, e.event_id, e.destination, e.idempotency_key, e.event_type, ?, l.last_class,"
                + " l.last_status, l.attempts, l.last_error, ?, ?"
                + ledgerFrom + " WHERE l.id = ?")) {
            ps.setString(1, reason.dbValue());
            ps.setString(2, redactedPayload);
            ps.setLong(3, atMicros);
            ps.setLong(4, ledgerId);
            ps.executeUpdate();
        }
    }

    @Override
    public int release(String owner, Instant now) {
        return tx("release claims", c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'pending',"
                    + " visible_micros = eligible_micros, lease_owner = NULL, lease_token = NULL,"
                    + " lease_expires_micros = NULL, updated_micros = ?"
                    + " WHERE lease_owner = ? AND state = 'in_flight' AND sending = 0")) {
                ps.setLong(1, Micros.of(now));
                ps.setString(2, owner);
                return ps.executeUpdate();
            }
        });
    }

    // ---------------------------------------------------------------------------------------------
    // reading

    @Override
    public Optional<LedgerEntry> entry(long ledgerId) {
        return read("read ledger", c -> selectEntry(c, "l.id = ?", ps -> ps.setLong(1, ledgerId)));
    }

    @Override
    public Optional<LedgerEntry> entry(String destination, String idempotencyKey) {
        return read("read ledger", c -> selectEntry(c, "e.destination = ? AND e.idempotency_key = ?", ps -> {
            ps.setString(1, destination);
            ps.setString(2, idempotencyKey);
        }));
    }

    @Override
    public List<LedgerEntry> entries(LedgerState state, int limit) {
        return read("list ledger", c -> {
            List<LedgerEntry> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT " + ledgerColumns + ledgerFrom
                    + " WHERE l.state = ? ORDER BY l.updated_micros, l.id LIMIT ?")) {
                ps.setString(1, state.dbValue());
                ps.setInt(2, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(toEntry(rs));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        return read("list dead letters", c -> {
            List<DeadLetter> out = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM " + t.deadLetter()
                    + " ORDER BY id DESC LIMIT ?")) {
                ps.setInt(1, limit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.add(toDeadLetter(rs));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public Optional<DeadLetter> deadLetter(long id) {
        return read("read dead letter", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT * FROM " + t.deadLetter() + " WHERE id = ?")) {
                ps.setLong(1, id);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next() ? Optional.of(toDeadLetter(rs)) : Optional.empty();
                }
            }
        });
    }

    // ---------------------------------------------------------------------------------------------
    // replay and review

    @Override
    public LedgerEntry replay(long deadLetterId, Instant now, Instant expiresAt) {
        long nowMicros = Micros.of(now);
        return tx("replay", c -> {
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
                case PENDING, IN_FLIGHT -> throw new ReplayRefusedException(
                        ReplayRefusedException.Reason.ALREADY_QUEUED,
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
            requeue(c, ledgerId, nowMicros, Micros.of(expiresAt), true);
            try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.deadLetter()
                    + " SET replay_count = replay_count + 1, replayed_micros = ? WHERE id = ?")) {
                ps.setLong(1, nowMicros);
                ps.setLong(2, deadLetterId);
                ps.executeUpdate();
            }
            return selectEntry(c, "l.id = ?", ps -> ps.setLong(1, ledgerId)).orElseThrow();
        });
    }

    private void requeue(Connection c, long ledgerId, long nowMicros, long expiresMicros, boolean resetAttempts)
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

    @Override
    public LedgerEntry resolveReview(long ledgerId, ReviewResolution resolution, Instant now, Instant expiresAt,
            String redactedPayload) {
        long nowMicros = Micros.of(now);
        return tx("resolve review", c -> {
            LedgerEntry entry = selectEntry(c, "l.id = ?", ps -> ps.setLong(1, ledgerId))
                    .orElseThrow(() -> new NoSuchEntryException("no ledger row " + ledgerId));
            if (entry.state() != LedgerState.REVIEW) {
                throw new ReplayRefusedException(ReplayRefusedException.Reason.WRONG_STATE,
                        "ledger row " + ledgerId + " is " + entry.state().dbValue() + ", not in review");
            }
            switch (resolution) {
                case DELIVERED -> {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'delivered',"
                            + " delivered_micros = ?, last_error = ?, updated_micros = ? WHERE id = ?")) {
                        ps.setLong(1, nowMicros);
                        ps.setString(2, "resolved in review as delivered (was: " + clip(entry.lastError()) + ")");
                        ps.setLong(3, nowMicros);
                        ps.setLong(4, ledgerId);
                        ps.executeUpdate();
                    }
                }
                case RETRY -> requeue(c, ledgerId, nowMicros, Micros.of(expiresAt), false);
                case DEAD -> {
                    try (PreparedStatement ps = c.prepareStatement("UPDATE " + t.ledger() + " SET state = 'dead',"
                            + " updated_micros = ? WHERE id = ?")) {
                        ps.setLong(1, nowMicros);
                        ps.setLong(2, ledgerId);
                        ps.executeUpdate();
                    }
                    insertDeadLetter(c, ledgerId, DeadLetterReason.REVIEW_ABANDONED, redactedPayload, nowMicros);
                }
            }
            return selectEntry(c, "l.id = ?", ps -> ps.setLong(1, ledgerId)).orElseThrow();
        });
    }

    // ---------------------------------------------------------------------------------------------
    // status

    @Override
    public DeliveryStatus status(Instant now) {
        long nowMicros = Micros.of(now);
        return read("status", c -> {
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
            Instant next = null;
            try (PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + t.ledger()
                    + " WHERE state IN ('pending', 'in_flight') AND state = 'pending' AND visible_micros <= ?")) {
                ps.setLong(1, nowMicros);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    due = rs.getLong(1);
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT MIN(eligible_micros) FROM " + t.ledger()
                    + " WHERE state = 'pending'"); ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long m = rs.getLong(1);
                    if (!rs.wasNull()) {
                        next = Micros.toInstant(m);
                    }
                }
            }
            return new DeliveryStatus(byState, byReason, due, next, now);
        });
    }

    @Override
    public Optional<Instant> nextVisibleAt() {
        return read("next due", c -> {
            try (PreparedStatement ps = c.prepareStatement("SELECT MIN(visible_micros) FROM " + t.ledger()
                    + " WHERE state IN ('pending', 'in_flight')"); ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    long m = rs.getLong(1);
                    if (!rs.wasNull()) {
                        return Optional.of(Micros.toInstant(m));
                    }
                }
                return Optional.empty();
            }
        });
    }

    @Override
    public Optional<Instant> storeClock() {
        if (dialect != Dialect.POSTGRESQL) {
            return Optional.empty();
        }
        return read("store clock", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)");
                    ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Optional.of(Micros.toInstant(rs.getLong(1)));
            }
        });
    }

    @Override
    public void close() {
        if (groupCommit != null) {
            groupCommit.close();
        }
        ds.close();
    }

    // ---------------------------------------------------------------------------------------------
    // plumbing

    @FunctionalInterface
    private interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    @FunctionalInterface
    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    /**
     * A write on the attempt path: on SQLite through the group commit (several attempts' writes in
     * one transaction, one disk flush), elsewhere in a transaction of its own.
     */
    private <T> T write(String what, SqlWork<T> work) {
        return groupCommit != null ? groupCommit.submit(what, work) : tx(what, work);
    }

    /**
     * Group commit for SQLite. SQLite has one writer at a time and flushes the disk once per
     * commit, so a worker with 16 attempts in flight spends its time waiting for flushes one after
     * another. Here one thread takes every attempt write queued meanwhile (up to 64), runs them in
     * one transaction and commits once; each caller waits for that commit before it goes on, so
     * nothing is acknowledged before it is durable. If the batch fails, each write is retried
     * alone, so one bad write fails only its own caller. (PostgreSQL groups concurrent commits
     * itself.)
     */
    private final class GroupCommit {
        private static final int MAX_BATCH = 64;

        private record Job<T>(String what, SqlWork<T> work, CompletableFuture<T> result) {
        }

        private final BlockingQueue<Job<?>> queue = new LinkedBlockingQueue<>();
        private final Thread thread;
        private volatile boolean closed;

        GroupCommit() {
            thread = new Thread(this::loop, "sluice-delivery-sqlite-group-commit");
            thread.setDaemon(true);
            thread.start();
        }

        <T> T submit(String what, SqlWork<T> work) {
            if (closed) {
                return tx(what, work);
            }
            Job<T> job = new Job<>(what, work, new CompletableFuture<>());
            queue.add(job);
            if (closed && queue.remove(job)) { // closed meanwhile: nobody will take it
                return tx(what, work);
            }
            try {
                return job.result().join(); // uninterruptible: the write may be committing right now
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw e;
            }
        }

        private void loop() {
            List<Job<?>> batch = new ArrayList<>(MAX_BATCH);
            while (!closed || !queue.isEmpty()) {
                try {
                    Job<?> first = queue.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.clear();
                    batch.add(first);
                    queue.drainTo(batch, MAX_BATCH - 1);
                    run(batch);
                } catch (InterruptedException e) {
                    closed = true;
                } catch (RuntimeException | Error e) {
                    for (Job<?> j : batch) {
                        j.result().completeExceptionally(e);
                    }
                }
            }
        }

        private void run(List<Job<?>> batch) {
            if (batch.size() > 1) {
                List<Object> results;
                try {
                    results = tx("group commit", c -> {
                        List<Object> r = new ArrayList<>(batch.size());
                        for (Job<?> j : batch) {
                            r.add(j.work().run(c));
                        }
                        return r;
                    });
                } catch (RuntimeException e) {
                    results = null; // rolled back whole: fall through to one transaction each
                }
                if (results != null) {
                    for (int i = 0; i < batch.size(); i++) {
                        complete(batch.get(i), results.get(i));
                    }
                    return;
                }
            }
            for (Job<?> j : batch) {
                runAlone(j);
            }
        }

        private <T> void runAlone(Job<T> j) {
            try {
                j.result().complete(tx(j.what(), j.work()));
            } catch (RuntimeException | Error e) {
                j.result().completeExceptionally(e);
            }
        }

        @SuppressWarnings("unchecked")
        private <T> void complete(Job<T> j, Object result) {
            j.result().complete((T) result);
        }

        void close() {
            closed = true; // no interrupt: it could fail a commit in progress; the poll ends in 100 ms
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Job<?> left;
            while ((left = queue.poll()) != null) {
                runAlone(left);
            }
        }
    }

    /** Runs {@code work} in one transaction, retrying it whole on lock conflicts and deadlocks. */
    private <T> T tx(String what, SqlWork<T> work) {
        SQLException last = null;
        for (int attempt = 1; attempt <= TX_TRIES; attempt++) {
            try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                try {
                    T result = work.run(c);
                    c.commit();
                    return result;
                } catch (SQLException | RuntimeException | Error e) {
                    try {
                        c.rollback();
                    } catch (SQLException suppressed) {
                        e.addSuppressed(suppressed);
                    }
                    throw e;
                }
            } catch (SQLException e) {
                if (!isTransient(e)) {
                    throw new StoreException(what + " failed: " + e.getMessage(), e);
                }
                last = e;
                backOff(attempt);
            }
        }
        throw exhausted(what, last);
    }

    /** Runs a read in auto-commit mode (one consistent statement at a time is enough for reads). */
    private <T> T read(String what, SqlWork<T> work) {
        SQLException last = null;
        for (int attempt = 1; attempt <= TX_TRIES; attempt++) {
            try (Connection c = ds.getConnection()) {
                return work.run(c);
            } catch (SQLException e) {
                if (!isTransient(e)) {
                    throw new StoreException(what + " failed: " + e.getMessage(), e);
                }
                last = e;
                backOff(attempt);
            }
        }
        throw exhausted(what, last);
    }

    /**
     * The error after {@link #TX_TRIES} transient failures: for a SQLite file another process keeps
     * locked, the one line of {@link #locked}; else the last error.
     */
    private StoreException exhausted(String what, SQLException last) {
        if (dialect == Dialect.SQLITE && isBusy(last)) {
            return locked(sqliteFile, busyTimeout, what, last);
        }
        return new StoreException(what + " failed after " + TX_TRIES + " tries: " + last.getMessage(), last);
    }

    /** How long a SQLite connection waits for another process's write lock before giving up, by default. */
    public static final Duration DEFAULT_SQLITE_BUSY_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Plain {@code SQLITE_BUSY} (code 5) somewhere in the chain: another connection held the lock
     * past the busy timeout. Used to word the final error; transactions still retry it like any
     * transient failure first ({@link #isTransient}), as a worker must ride out a busy moment.
     */
    static boolean isBusy(Throwable e) {
        for (Throwable x = e; x != null; x = x.getCause()) {
            if (x instanceof SQLException s && s.getErrorCode() == 5) {
                return true;
            }
        }
        return false;
    }

    /** One line a person can act on: which file, that someone else holds it, what to do. */
    static StoreException locked(Path file, Duration waited, String what, Throwable cause) {
        return new StoreException("the SQLite store " + file + " is locked: another process (a second 'sluice"
                + " deliver run' or a tool with an open write transaction) has held its write lock for longer than "
                + Durations.format(waited) + " (" + what + "); stop that process or wait for it, then"
                + " retry. For more throughput run one worker with a higher worker.concurrency; for several"
                + " machines use PostgreSQL", cause);
    }

    /** PostgreSQL serialization failure / deadlock; SQLite BUSY / LOCKED (any extended code). */
    private boolean isTransient(SQLException e) {
        for (Throwable x = e; x != null; x = x.getCause()) {
            if (x instanceof SQLException s) {
                String st = s.getSQLState();
                if ("40001".equals(st) || "40P01".equals(st)) {
                    return true;
                }
                int primary = s.getErrorCode() & 0xff;
                if (dialect == Dialect.SQLITE && (primary == 5 || primary == 6)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static void backOff(int attempt) {
        try {
            // a short, growing pause so that conflicting transactions stop colliding
            Thread.sleep(Math.min(200L, 5L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Optional<LedgerEntry> selectEntry(Connection c, String where, Binder binder) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT " + ledgerColumns + ledgerFrom + " WHERE " + where)) {
            binder.bind(ps);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(toEntry(rs)) : Optional.empty();
            }
        }
    }

    private static LedgerEntry toEntry(ResultSet rs) throws SQLException {
        Event event = new Event(rs.getString("event_id"), rs.getString("destination"), rs.getString("event_type"),
                rs.getString("idempotency_key"), rs.getString("payload"),
                Micros.toInstant(rs.getLong("created_micros")));
        return new LedgerEntry(rs.getLong("id"), event, LedgerState.fromDb(rs.getString("state")),
                rs.getInt("attempts"), ResponseClass.fromDb(rs.getString("last_class")),
                nullableInt(rs, "last_status"), rs.getString("last_error"),
                Micros.toInstant(rs.getLong("eligible_micros")), Micros.toInstant(rs.getLong("expires_micros")),
                rs.getString("lease_owner"), nullableInstant(rs, "lease_expires_micros"),
                Micros.toInstant(rs.getLong("updated_micros")), nullableInstant(rs, "delivered_micros"));
    }

    private static DeadLetter toDeadLetter(ResultSet rs) throws SQLException {
        return new DeadLetter(rs.getLong("id"), rs.getLong("ledger_id"), rs.getString("event_id"),
                rs.getString("destination"), rs.getString("idempotency_key"), rs.getString("event_type"),
                DeadLetterReason.fromDb(rs.getString("reason")), ResponseClass.fromDb(rs.getString("final_class")),
                nullableInt(rs, "final_status"), rs.getInt("attempts"), rs.getString("last_error"),
                rs.getString("redacted_payload"), Micros.toInstant(rs.getLong("dead_micros")),
                rs.getInt("replay_count"), nullableInstant(rs, "replayed_micros"));
    }

    private static Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }

    private static Instant nullableInstant(ResultSet rs, String column) throws SQLException {
        long v = rs.getLong(column);
        return rs.wasNull() ? null : Micros.toInstant(v);
    }

    private static void setNullableInt(PreparedStatement ps, int index, Integer value) throws SQLException {
        if (value == null) {
            ps.setNull(index, Types.INTEGER);
        } else {
            ps.setInt(index, value);
        }
    }

    /** Errors are for people: keep them short enough to list. */
    private static String clip(String s) {
        if (s == null) {
            return null;
        }
        return s.length() <= 500 ? s : s.substring(0, 500) + "…";
    }
}
