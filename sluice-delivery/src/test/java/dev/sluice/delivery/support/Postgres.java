package dev.sluice.delivery.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Assumptions;

/**
 * The test PostgreSQL: 127.0.0.1:5432, database {@code test}, trust auth, user {@code postgres}
 * (else the OS user). When it cannot be reached the calling test is skipped with the reason
 * printed, unless {@code CI=true}, where a missing database is a failure ({@code .ci/run} starts it).
 */
public final class Postgres {

    private static final String BASE = "jdbc:postgresql://127.0.0.1:5432/test";
    private static volatile String url;
    private static volatile String unavailable;

    private Postgres() {
    }

    /** The JDBC URL with the user that works, or skips/fails the test (see the class comment). */
    public static synchronized String url() {
        if (url != null) {
            return url;
        }
        if (unavailable == null) {
            StringBuilder why = new StringBuilder();
            for (String user : new String[] {"postgres", System.getProperty("user.name")}) {
                String candidate = BASE + "?user=" + user + "&connectTimeout=3&ApplicationName=sluice-delivery-test";
                try (Connection c = DriverManager.getConnection(candidate)) {
                    url = candidate;
                    return url;
                } catch (SQLException e) {
                    why.append(" [").append(user).append(": ").append(e.getMessage()).append(']');
                }
            }
            unavailable = "PostgreSQL at 127.0.0.1:5432/test is not reachable:" + why;
        }
        if ("true".equals(System.getenv("CI"))) {
            throw new AssertionError(unavailable + " (CI=true: the PostgreSQL tests must run)");
        }
        System.out.println("SKIPPED PostgreSQL tests: " + unavailable);
        Assumptions.abort(unavailable);
        throw new IllegalStateException("unreachable");
    }

    /** A fresh schema name, unique to this run. */
    public static String newSchema() {
        byte[] b = new byte[6];
        ThreadLocalRandom.current().nextBytes(b);
        return "sluice_t_" + HexFormat.of().formatHex(b);
    }

    /** Drops {@code schema} and everything in it. */
    public static void drop(String schema) {
        try (Connection c = DriverManager.getConnection(url()); Statement s = c.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS \"" + schema + "\" CASCADE");
        } catch (SQLException e) {
            throw new AssertionError("could not drop test schema " + schema, e);
        }
    }
}
