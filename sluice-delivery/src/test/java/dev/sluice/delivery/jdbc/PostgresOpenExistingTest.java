package dev.sluice.delivery.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.delivery.NoStoreException;
import dev.sluice.delivery.support.Postgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** A read-only open of PostgreSQL creates no schema; skipped with a reason when PostgreSQL is unreachable. */
class PostgresOpenExistingTest {

    @Test
    void openExistingOnASchemaWithoutTablesCreatesNothing() throws Exception {
        String schema = Postgres.newSchema();
        JdbcDeliveryStore.Options options = JdbcDeliveryStore.Options.defaults().withSchema(schema).withPoolSize(2);

        assertThatThrownBy(() -> JdbcDeliveryStore.openExisting(Postgres.url(), options))
                .isInstanceOf(NoStoreException.class)
                .hasMessageEndingWith("(no Sluice tables in schema " + schema + ")");
        try (Connection c = DriverManager.getConnection(Postgres.url()); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM information_schema.schemata WHERE schema_name = '"
                        + schema + "'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }

        try {
            JdbcDeliveryStore.open(Postgres.url(), options).close();
            try (JdbcDeliveryStore s = JdbcDeliveryStore.openExisting(Postgres.url(), options)) {
                assertThat(s.destinations()).isEmpty();
            }
        } finally {
            Postgres.drop(schema);
        }
    }
}
