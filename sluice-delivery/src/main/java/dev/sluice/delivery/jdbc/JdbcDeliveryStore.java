package dev.sluice.delivery.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.delivery.DeadLetter;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.DestinationState;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.NoStoreException;
import dev.sluice.delivery.ReviewResolution;
import dev.sluice.delivery.StoreException;
import dev.sluice.delivery.UnknownDestinationException;
import dev.sluice.delivery.spi.AttemptStart;
import dev.sluice.delivery.spi.Claim;
import dev.sluice.delivery.spi.ClaimedStart;
import dev.sluice.delivery.spi.Completion;
import dev.sluice.delivery.spi.DeliveryStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

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
 *
 * <p>This class is a façade: it draws each method's transaction boundary ({@code Transactions},
 * and on SQLite the attempt path's {@code GroupCommit}) and leaves the SQL to one repository per
 * aggregate: {@code DestinationBucket}, {@code OutboxRepository}, {@code LeaseRepository} (leases
 * and attempts), {@code DeadLetterRepository}. {@code StoreFactory} opens the pool and migrates.
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

        /**
         * @param mode {@code FULL} or {@code NORMAL}; prefer {@link #withSqliteSurvivingProcessCrashOnly()},
         *     whose name says what {@code NORMAL} gives up
         * @throws IllegalArgumentException for any other mode
         */
        public Options withSqliteSynchronous(String mode) {
            return new Options(schema, poolSize, mode, sqliteBusyTimeout);
        }

        /**
         * SQLite with {@code synchronous=NORMAL} in WAL mode: a commit no longer waits for the disk,
         * so the single writer's group commits are not bound by a sync each; the WAL is synced at
         * checkpoints. What is given up: a committed write survives a crash of the process (a
         * killed or failed worker loses nothing), but a power loss or operating-system crash may
         * roll back the last commits, so an acknowledged enqueue can be lost and a recorded
         * delivery can be sent again (with the same key). SPEC §6.4 ("a crash at any point loses
         * nothing") then holds for process crashes only, which is why the default stays
         * {@code FULL}. Ignored by PostgreSQL.
         */
        public Options withSqliteSurvivingProcessCrashOnly() {
            return withSqliteSynchronous("NORMAL");
        }

        public Options withSqliteBusyTimeout(Duration d) {
            return new Options(schema, poolSize, sqliteSynchronous, d);
        }
    }

    /**
     * Completion groups committed side by side on PostgreSQL: with one, a worker delivered at most
     * one group per commit latency (round trip and WAL flush), and its attempt threads waited on
     * that queue longer than on HTTP (bench/notes/delivery.md). Each lane holds a pooled connection
     * only while it commits.
     */
    static final int COMPLETION_LANES = 4;

    /** How long a SQLite connection waits for another process's write lock before giving up, by default. */
    public static final Duration DEFAULT_SQLITE_BUSY_TIMEOUT = Duration.ofSeconds(30);

    private final HikariDataSource ds;
    private final Dialect dialect;
    private final String schema;
    private final Transactions transactions;
    private final GroupCommit groupCommit;
    private final GroupCommit finishes;
    private final DestinationBucket destinations;
    private final OutboxRepository outbox;
    private final LeaseRepository leases;
    private final DeadLetterRepository deadLetters;

    private JdbcDeliveryStore(StoreFactory.Opened opened) {
        this.ds = opened.dataSource();
        this.dialect = opened.location().dialect();
        this.schema = opened.options().schema();
        this.transactions = new Transactions(ds, dialect, opened.location().sqlitePath(),
                opened.options().sqliteBusyTimeout());
        this.groupCommit = dialect == Dialect.SQLITE
                ? new GroupCommit(transactions, "sluice-delivery-sqlite-group-commit") : null;
        this.finishes = dialect == Dialect.POSTGRESQL
                ? new GroupCommit(transactions, "sluice-delivery-completions", COMPLETION_LANES) : null;
        Tables t = Tables.in(schema);
        this.destinations = new DestinationBucket(t, dialect);
        this.outbox = new OutboxRepository(t, destinations);
        this.leases = new LeaseRepository(t, dialect, destinations);
        this.deadLetters = new DeadLetterRepository(t, leases, outbox);
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
        return new JdbcDeliveryStore(StoreFactory.open(location, options, true));
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
        return new JdbcDeliveryStore(StoreFactory.open(location, options, false));
    }

    /** Which store this is. */
    public Dialect dialect() {
        return dialect;
    }

    /** The PostgreSQL schema, or {@code null}. */
    public String schema() {
        return schema;
    }

    // destinations

    @Override
    public void upsertDestination(Destination d, Instant now) {
        transactions.tx("register destination", c -> {
            destinations.upsert(c, d, Micros.of(now));
            return null;
        });
    }

    @Override
    public boolean enableDestination(String name, Instant now) {
        return transactions.tx("enable destination", c -> destinations.enable(c, name, Micros.of(now)));
    }

    @Override
    public List<DestinationState> destinations() {
        return transactions.read("list destinations", destinations::list);
    }

    // outbox

    @Override
    public EnqueueResult enqueue(Event event, Instant expiresAt) {
        return transactions.tx("enqueue", c -> outbox.enqueue(c, event, expiresAt));
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
            return outbox.enqueue(connection, event, expiresAt);
        } catch (SQLException e) {
            throw new StoreException("enqueue failed: " + e.getMessage(), e);
        }
    }

    // claims and attempts

    @Override
    public List<Claim> claim(String owner, int max, Instant now, Duration lease) {
        if (max < 1) {
            return List.of();
        }
        long nowMicros = Micros.of(now);
        long leaseUntil = Micros.of(now.plus(lease));
        String token = UUID.randomUUID().toString();
        return write("claim", c -> leases.claim(c, owner, token, max, nowMicros, leaseUntil));
    }

    @Override
    public int heartbeat(String owner, Instant leaseExpiresAt) {
        return write("heartbeat", c -> leases.heartbeat(c, owner, Micros.of(leaseExpiresAt)));
    }

    @Override
    public AttemptStart startAttempt(Claim claim, Instant now) {
        return write("start attempt", c -> {
            relaxCommit(c, List.of(claim));
            return leases.startAttempt(c, claim, Micros.of(now));
        });
    }

    @Override
    public List<AttemptStart> startAttempts(List<Claim> claims, Instant now) {
        if (claims.isEmpty()) {
            return List.of();
        }
        return write("start attempts", c -> {
            relaxCommit(c, claims);
            return leases.startAttempts(c, claims, Micros.of(now));
        });
    }

    /**
     * One transaction: the claim, then the starts of the claims {@code startable} accepts (one
     * round of batches for the whole claim instead of a transaction for the claim and another
     * for its starts). On PostgreSQL it commits without waiting for the WAL flush when every
     * claimed destination deduplicates ({@link #relaxCommit}): a lost claim is a row pending again,
     * sent again later with the same key.
     */
    @Override
    public List<ClaimedStart> claimAndStart(String owner, int max, Instant now, Duration lease,
            Predicate<Claim> startable) {
        if (max < 1) {
            return List.of();
        }
        long nowMicros = Micros.of(now);
        long leaseUntil = Micros.of(now.plus(lease));
        String token = UUID.randomUUID().toString();
        return write("claim and start", c -> {
            List<Claim> claims = leases.claim(c, owner, token, max, nowMicros, leaseUntil);
            if (claims.isEmpty()) {
                return List.of();
            }
            relaxCommit(c, claims);
            try {
                return ClaimedStart.pair(claims, startable, toStart -> {
                    try {
                        return leases.startAttempts(c, toStart, nowMicros);
                    } catch (SQLException e) {
                        throw new StartFailed(e);
                    }
                });
            } catch (StartFailed e) {
                throw e.sql;
            }
        });
    }

    /**
     * On PostgreSQL one statement in auto-commit mode, one round trip: the claim, every claimed
     * destination's tokens (each bucket row locked and updated once for the batch) and the starts
     * ({@code LeaseRepository#claimAndStartAtOnce}); its commit waits for no WAL flush when every
     * claimed destination deduplicates, as in {@link #relaxCommit}. On SQLite the claim and the
     * starts share one group-committed transaction, as in the predicate form.
     */
    @Override
    public List<ClaimedStart> claimAndStart(String owner, int max, Instant now, Duration lease) {
        if (dialect != Dialect.POSTGRESQL) {
            return DeliveryStore.super.claimAndStart(owner, max, now, lease);
        }
        if (max < 1) {
            return List.of();
        }
        long nowMicros = Micros.of(now);
        long leaseUntil = Micros.of(now.plus(lease));
        String token = UUID.randomUUID().toString();
        return transactions.autoCommit("claim and start",
                c -> leases.claimAndStartAtOnce(c, owner, token, max, nowMicros, leaseUntil));
    }

    @Override
    public int putBack(List<Claim> claims, Instant now) {
        if (claims.isEmpty()) {
            return 0;
        }
        return write("put back claims", c -> leases.putBack(c, claims, Micros.of(now)));
    }

    /** Carries a start's {@link SQLException} through {@link ClaimedStart#pair}'s function. */
    private static final class StartFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final transient SQLException sql;

        StartFailed(SQLException sql) {
            super(sql);
            this.sql = sql;
        }
    }

    /**
     * On PostgreSQL, commits the start of attempts to destinations that all deduplicate without
     * waiting for the WAL flush. Nothing there must survive a database crash: a lost token is a
     * token refunded, and a lost 'sending' mark only matters to destinations that cannot
     * deduplicate. Not waiting keeps the destination's bucket row locked for microseconds instead
     * of a disk flush, which is what lets replicas scale.
     */
    private void relaxCommit(Connection c, List<Claim> claims) throws SQLException {
        if (dialect == Dialect.POSTGRESQL && claims.stream().allMatch(cl -> cl.destination().idempotent())) {
            try (Statement s = c.createStatement()) {
                s.execute("SET LOCAL synchronous_commit = off");
            }
        }
    }

    @Override
    public boolean finish(Claim claim, Completion completion) {
        GroupCommit group = finishes != null ? finishes : groupCommit;
        if (group != null && completion instanceof Completion.Delivered d) {
            // the common completion: one statement, batched with the others of its group
            return group.submitUpdate("finish attempt", leases.deliveredSql(),
                    ps -> LeaseRepository.bindDelivered(ps, claim, d));
        }
        SqlWork<Boolean> work = c -> {
            if (!leases.finish(c, claim, completion)) {
                return false;
            }
            if (completion instanceof Completion.Dead d) {
                long at = Micros.of(d.at());
                deadLetters.insert(c, claim.ledgerId(), d.reason(), d.redactedPayload(), at);
                if (d.disableDestination()) {
                    destinations.disable(c, claim.destination().name(),
                            "410 Gone answered for " + claim.event().idempotencyKey(), at);
                }
            }
            return true;
        };
        // a completion is acknowledged to nobody but the worker, which waits for the commit: on
        // PostgreSQL too, completions arriving together share one transaction and one WAL flush
        return finishes != null ? finishes.submit("finish attempt", work) : write("finish attempt", work);
    }

    /**
     * A delivery (the common completion) joins the next group's JDBC batch and this returns at
     * once; other completions are written as by {@link #finish}, in the caller's thread.
     */
    @Override
    public CompletableFuture<Boolean> finishLater(Claim claim, Completion completion) {
        GroupCommit group = finishes != null ? finishes : groupCommit;
        if (group != null && completion instanceof Completion.Delivered d) {
            return group.submitUpdateLater("finish attempt", leases.deliveredSql(),
                    ps -> LeaseRepository.bindDelivered(ps, claim, d));
        }
        return DeliveryStore.super.finishLater(claim, completion);
    }

    @Override
    public int release(String owner, Instant now) {
        return transactions.tx("release claims", c -> leases.release(c, owner, Micros.of(now)));
    }

    // reading

    @Override
    public Optional<LedgerEntry> entry(long ledgerId) {
        return transactions.read("read ledger", c -> outbox.entry(c, ledgerId));
    }

    @Override
    public Optional<LedgerEntry> entry(String destination, String idempotencyKey) {
        return transactions.read("read ledger", c -> outbox.entry(c, destination, idempotencyKey));
    }

    @Override
    public List<LedgerEntry> entries(LedgerState state, int limit) {
        return transactions.read("list ledger", c -> outbox.entries(c, state, limit));
    }

    @Override
    public List<DeadLetter> deadLetters(int limit) {
        return transactions.read("list dead letters", c -> deadLetters.list(c, limit));
    }

    @Override
    public Optional<DeadLetter> deadLetter(long id) {
        return transactions.read("read dead letter", c -> deadLetters.get(c, id));
    }

    // replay and review

    @Override
    public LedgerEntry replay(long deadLetterId, Instant now, Instant expiresAt) {
        return transactions.tx("replay",
                c -> deadLetters.replay(c, deadLetterId, Micros.of(now), Micros.of(expiresAt)));
    }

    @Override
    public LedgerEntry resolveReview(long ledgerId, ReviewResolution resolution, Instant now, Instant expiresAt,
            String redactedPayload) {
        return transactions.tx("resolve review", c -> deadLetters.resolveReview(c, ledgerId, resolution,
                Micros.of(now), Micros.of(expiresAt), redactedPayload));
    }

    // status

    @Override
    public DeliveryStatus status(Instant now) {
        return transactions.read("status", c -> outbox.status(c, now));
    }

    @Override
    public Optional<Instant> nextVisibleAt() {
        return transactions.read("next due", outbox::nextVisibleAt);
    }

    @Override
    public Optional<Instant> storeClock() {
        if (dialect != Dialect.POSTGRESQL) {
            return Optional.empty();
        }
        return transactions.read("store clock", c -> {
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
        if (finishes != null) {
            finishes.close();
        }
        ds.close();
    }

    /**
     * A write of a worker (claim, heartbeat, start, finish): on SQLite through the group commit
     * (several writes in one transaction, one disk flush, and no connection of this process waiting
     * on SQLite's file lock behind the others: a heartbeat that lost that race for longer than a
     * lease would let the worker's own rows be claimed again), elsewhere in a transaction of its own.
     */
    private <T> T write(String what, SqlWork<T> work) {
        return groupCommit != null ? groupCommit.submit(what, work) : transactions.tx(what, work);
    }
}
