package dev.sluice.keys;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;

/**
 * A schema of its own in the shared PostgreSQL on 127.0.0.1:5432 (database {@code test}), dropped by
 * {@link #close()}; or, with {@link #database()}, a database of its own that a test can take away. When that
 * PostgreSQL cannot be reached the calling test is skipped with the reason printed, unless {@code CI=true},
 * where it fails ({@code .ci/run} starts PostgreSQL).
 */
final class TestDatabase implements AutoCloseable {

    static final String ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";

    final String name;
    final boolean ownDatabase;

    private TestDatabase(String name, boolean ownDatabase) {
        this.name = name;
        this.ownDatabase = ownDatabase;
    }

    private static volatile String unavailable;
    private static volatile boolean reachable;

    /** Returns when the test PostgreSQL answers; else skips the test (fails it with {@code CI=true}). */
    static synchronized void require() {
        if (reachable) {
            return;
        }
        if (unavailable == null) {
            try (Connection c = DriverManager.getConnection(ADMIN_URL + "&connectTimeout=3")) {
                reachable = true;
                return;
            } catch (SQLException e) {
                unavailable = "PostgreSQL at 127.0.0.1:5432/test is not reachable: " + e.getMessage();
            }
        }
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError(unavailable + " (CI=true: the PostgreSQL tests must run)");
        }
        System.out.println("SKIPPED PostgreSQL tests: " + unavailable);
        Assumptions.abort(unavailable);
    }

    static TestDatabase schema() {
        require();
        return new TestDatabase("keys_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12), false);
    }

    static TestDatabase database() {
        require();
        TestDatabase d = new TestDatabase("keys_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12),
                true);
        d.admin("CREATE DATABASE " + d.name);
        return d;
    }

    /** The JDBC URL of the tables' database. */
    String url() {
        return ownDatabase ? "jdbc:postgresql://127.0.0.1:5432/" + name + "?user=postgres" : ADMIN_URL;
    }

    KeyStoreConfig config() {
        KeyStoreConfig c = KeyStoreConfig.of(url());
        return ownDatabase ? c : c.withSchema(name);
    }

    /** The tables' qualified prefix. */
    String prefix() {
        return ownDatabase ? "" : "\"" + name + "\".";
    }

    void sql(String statement) {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(statement, e);
        }
    }

    long count(String query) {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement();
                var rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(query, e);
        }
    }

    void admin(String statement) {
        try (Connection c = DriverManager.getConnection(ADMIN_URL); Statement s = c.createStatement()) {
            s.execute(statement);
        } catch (SQLException e) {
            throw new IllegalStateException(statement, e);
        }
    }

    /** Takes the own database away: no new connections, the open ones ended. */
    void takeAway() {
        admin("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false");
        admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'");
    }

    void bringBack() {
        admin("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true");
    }

    @Override
    public void close() {
        if (ownDatabase) {
            bringBack();
            admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } else {
            admin("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        }
    }
}
