package dev.sluice.delivery.jdbc;

import dev.sluice.delivery.StoreException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Plain versioned SQL applied at start: {@code migration/<dialect>/V<n>__<name>.sql} on the class
 * path, recorded in {@code sluice_schema_version}. Each version is applied in its own transaction
 * under a lock (PostgreSQL: an advisory transaction lock; SQLite: the write lock that
 * {@code BEGIN IMMEDIATE} takes), so replicas starting together apply it once. A store whose
 * version is newer than this code knows is refused rather than used.
 *
 * <p>Why not Flyway: two dialects and a handful of tables do not need a library whose recent
 * versions ship database support as separate modules and whose SQLite support is a community
 * add-on; the whole mechanism is this class, and the scripts read the same either way.
 */
final class Migrations {

    /** One schema version. */
    record Migration(int version, String name) {
        String resource(Dialect dialect) {
            return "/dev/sluice/delivery/jdbc/migration/" + dialect.migrationFolder() + "/V" + version + "__" + name
                    + ".sql";
        }
    }

    /** Every version, in order. Append; never edit a released one. */
    static final List<Migration> ALL = List.of(new Migration(1, "ledger"));

    /** An arbitrary constant: the advisory lock every Sluice replica takes while migrating. */
    private static final long PG_LOCK_KEY = 7_262_017_001L;

    private Migrations() {
    }

    /**
     * Brings the store up to {@link #ALL}'s last version.
     *
     * @return the version the store is at afterwards
     * @throws StoreException if a script fails (its transaction is rolled back) or the store is newer
     */
    static int apply(DataSource ds, Dialect dialect, Tables tables, String schema) {
        int latest = ALL.get(ALL.size() - 1).version();
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            try {
                int current = lockAndReadVersion(c, dialect, tables, schema);
                if (current > latest) {
                    throw new StoreException("the delivery store is at schema version " + current
                            + " but this Sluice knows only up to " + latest + "; upgrade Sluice");
                }
                for (Migration m : ALL) {
                    if (m.version() <= current) {
                        continue;
                    }
                    for (String sql : statements(load(m.resource(dialect)), tables)) {
                        try (Statement s = c.createStatement()) {
                            s.execute(sql);
                        }
                    }
                    // installed_micros is bookkeeping for people, taken from the database's clock
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + tables.version()
                            + " (version, name, installed_micros) VALUES (?, ?, " + dbNowMicros(dialect) + ")")) {
                        ps.setInt(1, m.version());
                        ps.setString(2, m.name());
                        ps.executeUpdate();
                    }
                    c.commit();
                    if (m.version() < latest) {
                        lockAndReadVersion(c, dialect, tables, schema);
                    }
                }
                c.commit();
                return latest;
            } catch (SQLException | RuntimeException e) {
                try {
                    c.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException("schema migration failed: " + e.getMessage(), e);
        }
    }

    private static String dbNowMicros(Dialect dialect) {
        return dialect == Dialect.POSTGRESQL
                ? "CAST(EXTRACT(EPOCH FROM now()) * 1000000 AS BIGINT)"
                : "CAST(strftime('%s', 'now') AS INTEGER) * 1000000";
    }

    private static int lockAndReadVersion(Connection c, Dialect dialect, Tables tables, String schema)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            if (dialect == Dialect.POSTGRESQL) {
                s.execute("SELECT pg_advisory_xact_lock(" + PG_LOCK_KEY + ")");
                if (schema != null) {
                    s.execute("CREATE SCHEMA IF NOT EXISTS " + Tables.quote(schema));
                }
            }
            // In SQLite this is the first write of the transaction: BEGIN IMMEDIATE already holds the lock.
            s.execute("CREATE TABLE IF NOT EXISTS " + tables.version()
                    + " (version INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL, installed_micros BIGINT NOT NULL)");
            try (ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM " + tables.version())) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static String load(String resource) {
        try (InputStream in = Migrations.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new StoreException("missing migration script " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new StoreException("cannot read migration script " + resource, e);
        }
    }

    /** Splits a script at semicolons that end a line, dropping {@code --} comment lines. */
    static List<String> statements(String script, Tables tables) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) {
                continue;
            }
            current.append(line).append('\n');
            if (trimmed.endsWith(";")) {
                String sql = current.toString().strip();
                out.add(tables.substitute(sql.substring(0, sql.length() - 1)));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(tables.substitute(current.toString().strip()));
        }
        return out;
    }
}
