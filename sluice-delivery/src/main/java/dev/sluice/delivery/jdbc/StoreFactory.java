package dev.sluice.delivery.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sluice.delivery.NoStoreException;
import dev.sluice.delivery.StoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Opens a store: parses the location, builds the connection pool with each dialect's settings
 * (SQLite: WAL, the {@code synchronous} pragma, the busy timeout, {@code BEGIN IMMEDIATE}, foreign
 * keys), refuses a read-only open where there is no store, and applies the migrations.
 */
final class StoreFactory {

    /** What an open produced: the pool and what the façade needs to know about it. */
    record Opened(HikariDataSource dataSource, StoreLocation location, JdbcDeliveryStore.Options options) {
    }

    private StoreFactory() {
    }

    /**
     * @param create whether a missing store is created ({@code open}) or refused ({@code openExisting})
     * @throws IllegalArgumentException if the location or options are malformed
     * @throws NoStoreException if {@code create} is false and there is no store
     * @throws StoreException if the database cannot be reached or migrated
     */
    static Opened open(String location, JdbcDeliveryStore.Options options, boolean create) {
        StoreLocation where = StoreLocation.parse(location);
        if (!create && where.dialect() == Dialect.SQLITE) {
            Path file = where.sqlitePath();
            try {
                if (!Files.isRegularFile(file) || Files.size(file) == 0) {
                    throw new NoStoreException(file.toString(), null);
                }
            } catch (IOException e) {
                throw new NoStoreException(file.toString(), e.getMessage());
            }
        }
        HikariConfig hc = new HikariConfig();
        hc.setMaximumPoolSize(options.poolSize());
        hc.setMinimumIdle(1);
        hc.setPoolName("sluice-delivery-" + where.dialect().name().toLowerCase(Locale.ROOT));
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
            } catch (IOException e) {
                throw new StoreException("cannot create the folder of " + where.sqlitePath(), e);
            }
            SQLiteDataSource sqlite = sqlite(where, options);
            probe(sqlite, where, options);
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
            if (where.dialect() == Dialect.SQLITE && Transactions.isBusy(e)) {
                throw Transactions.locked(where.sqlitePath(), options.sqliteBusyTimeout(), "open", e);
            }
            throw e instanceof StoreException se ? se
                    : new StoreException("cannot open the delivery store at " + redact(location), e);
        }
        return new Opened(ds, where, options);
    }

    private static SQLiteDataSource sqlite(StoreLocation where, JdbcDeliveryStore.Options options) {
        SQLiteConfig cfg = new SQLiteConfig();
        cfg.setJournalMode(SQLiteConfig.JournalMode.WAL);
        cfg.setSynchronous(SQLiteConfig.SynchronousMode.valueOf(options.sqliteSynchronous()));
        cfg.setBusyTimeout((int) options.sqliteBusyTimeout().toMillis());
        cfg.setTransactionMode(SQLiteConfig.TransactionMode.IMMEDIATE);
        cfg.enforceForeignKeys(true);
        SQLiteDataSource sqlite = new SQLiteDataSource(cfg);
        sqlite.setUrl(where.jdbcUrl());
        return sqlite;
    }

    /**
     * Opens one connection outside the pool and reads the schema, so that a file that is not a
     * SQLite database (or whose first pages are damaged) is reported at once in one line. Through
     * the pool, every connection attempt would fail and the pool would retry until its 30 s
     * connection timeout, then report only that.
     */
    private static void probe(SQLiteDataSource sqlite, StoreLocation where, JdbcDeliveryStore.Options options) {
        Path file = where.sqlitePath();
        try {
            if (!Files.isRegularFile(file) || Files.size(file) == 0) {
                return; // a new store: SQLite creates it
            }
        } catch (IOException e) {
            throw new StoreException("cannot read the SQLite store " + file + ": " + e.getMessage(), e);
        }
        try (Connection c = sqlite.getConnection(); PreparedStatement ps = c.prepareStatement(
                "SELECT count(*) FROM sqlite_master"); ResultSet rs = ps.executeQuery()) {
            rs.next();
        } catch (SQLException e) {
            if (Transactions.isBusy(e)) {
                throw Transactions.locked(file, options.sqliteBusyTimeout(), "open", e);
            }
            int code = e.getErrorCode() & 0xff;
            if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) {
                throw new StoreException("the SQLite store " + file + " is not a SQLite database or is damaged ("
                        + firstLine(e.getMessage()) + "); restore it from a backup, or name another file with"
                        + " --store or the config's 'store'", e);
            }
            throw new StoreException("cannot open the SQLite store " + file + ": " + firstLine(e.getMessage()), e);
        }
    }

    private static final int SQLITE_CORRUPT = 11;
    private static final int SQLITE_NOTADB = 26;

    private static String firstLine(String s) {
        if (s == null) {
            return "no message";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
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
        return StoreLocation.redact(location);
    }
}
