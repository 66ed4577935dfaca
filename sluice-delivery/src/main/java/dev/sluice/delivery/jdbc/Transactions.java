package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.StoreException;
import dev.sluice.config.Durations;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Transaction boundaries for the store: a unit of work runs in one transaction, committed whole or
 * rolled back, and is retried whole (up to {@value #TRIES} times, with a short growing pause) when
 * the database reports a transient conflict: a PostgreSQL serialization failure or deadlock, a
 * SQLite {@code BUSY} or {@code LOCKED}. Anything else becomes a {@link StoreException} at once.
 * Thread-safe.
 */
final class Transactions {

    static final int TRIES = 8;

    private final DataSource ds;
    private final Dialect dialect;
    private final Path sqliteFile;
    private final Duration busyTimeout;

    Transactions(DataSource ds, Dialect dialect, Path sqliteFile, Duration busyTimeout) {
        this.ds = ds;
        this.dialect = dialect;
        this.sqliteFile = sqliteFile;
        this.busyTimeout = busyTimeout;
    }

    /** Runs {@code work} in one transaction, retrying it whole on lock conflicts and deadlocks. */
    <T> T tx(String what, SqlWork<T> work) {
        return retrying(what, c -> {
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
        });
    }

    /** Runs a read in auto-commit mode (one consistent statement at a time is enough for reads). */
    <T> T read(String what, SqlWork<T> work) {
        return retrying(what, work);
    }

    /**
     * Runs {@code work} in auto-commit mode, retried whole on transient failures like {@link #tx}:
     * for work that is one statement, which is then its own transaction (one round trip where
     * {@link #tx} needs another for the commit).
     */
    <T> T autoCommit(String what, SqlWork<T> work) {
        return retrying(what, work);
    }

    /** Runs {@code work} on a pooled connection, again on a fresh one after a transient failure. */
    private <T> T retrying(String what, SqlWork<T> work) {
        SQLException last = null;
        for (int attempt = 1; attempt <= TRIES; attempt++) {
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
     * The error after {@link #TRIES} transient failures: for a SQLite file another process keeps
     * locked, the one line of {@link #locked}; else the last error.
     */
    private StoreException exhausted(String what, SQLException last) {
        if (dialect == Dialect.SQLITE && isBusy(last)) {
            return locked(sqliteFile, busyTimeout, what, last);
        }
        return new StoreException(what + " failed after " + TRIES + " tries: " + last.getMessage(), last);
    }

    /** PostgreSQL serialization failure / deadlock; SQLite BUSY / LOCKED (any extended code). */
    boolean isTransient(SQLException e) {
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

    private static void backOff(int attempt) {
        try {
            // a short, growing pause so that conflicting transactions stop colliding
            Thread.sleep(Math.min(200L, 5L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
