package dev.sluice.keys.jdbc;

import dev.sluice.edge.keys.KeyAdministration.KeyStoreException;
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

/**
 * Plain versioned SQL applied at start, as the delivery store does: {@code migration/V<n>__<name>.sql} on
 * the class path, recorded in {@code sluice_keys_schema_version}, each version in its own transaction under
 * a PostgreSQL advisory lock so edges starting together apply it once. A store newer than this code is
 * refused.
 */
final class KeyMigrations {

    record Migration(int version, String name) {
        String resource() {
            return "/dev/sluice/keys/jdbc/migration/V" + version + "__" + name + ".sql";
        }
    }

    /** Every version, in order. Append; never edit a released one. */
    static final List<Migration> ALL = List.of(new Migration(1, "api_keys"));

    /** An arbitrary constant, other than the delivery store's. */
    private static final long PG_LOCK_KEY = 7_262_017_018L;

    private KeyMigrations() {
    }

    /** Brings the schema to the last version; returns it. */
    static int apply(Connection c, String schemaPrefix, String schema) throws SQLException {
        int latest = ALL.get(ALL.size() - 1).version();
        boolean auto = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            int current = lockAndReadVersion(c, schemaPrefix, schema);
            if (current > latest) {
                throw new KeyStoreException("the key store is at schema version " + current
                        + " but this Sluice knows only up to " + latest + "; upgrade Sluice", null);
            }
            for (Migration m : ALL) {
                if (m.version() <= current) {
                    continue;
                }
                for (String sql : statements(load(m.resource()), schemaPrefix)) {
                    try (Statement s = c.createStatement()) {
                        s.execute(sql);
                    }
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + schemaPrefix
                        + "sluice_keys_schema_version (version, name, installed_at) VALUES (?, ?, now())")) {
                    ps.setInt(1, m.version());
                    ps.setString(2, m.name());
                    ps.executeUpdate();
                }
            }
            c.commit();
            return latest;
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(auto);
        }
    }

    private static int lockAndReadVersion(Connection c, String prefix, String schema) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_xact_lock(" + PG_LOCK_KEY + ")");
            if (schema != null) {
                s.execute("CREATE SCHEMA IF NOT EXISTS \"" + schema + "\"");
            }
            s.execute("CREATE TABLE IF NOT EXISTS " + prefix + "sluice_keys_schema_version (version INTEGER NOT NULL "
                    + "PRIMARY KEY, name TEXT NOT NULL, installed_at TIMESTAMPTZ NOT NULL)");
            try (ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(version), 0) FROM " + prefix
                    + "sluice_keys_schema_version")) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static String load(String resource) {
        try (InputStream in = KeyMigrations.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing migration script " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read migration script " + resource, e);
        }
    }

    /**
     * Splits a script at semicolons that end a line outside a {@code $$} body, dropping {@code --} comment
     * lines, and puts {@code prefix} for {@code {s}}.
     */
    static List<String> statements(String script, String prefix) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inBody = false;
        for (String line : script.split("\n")) {
            String trimmed = line.strip();
            if (!inBody && (trimmed.isEmpty() || trimmed.startsWith("--"))) {
                continue;
            }
            current.append(line).append('\n');
            int dollars = line.split("\\$\\$", -1).length - 1;
            if (dollars % 2 == 1) {
                inBody = !inBody;
            }
            if (!inBody && trimmed.endsWith(";")) {
                String sql = current.toString().strip();
                out.add(sql.substring(0, sql.length() - 1).replace("{s}", prefix));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            out.add(current.toString().strip().replace("{s}", prefix));
        }
        return out;
    }
}
