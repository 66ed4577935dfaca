package dev.sluice.delivery;

import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.support.Postgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The contract on PostgreSQL (127.0.0.1:5432/test), each test in a fresh schema dropped after it.
 * Skipped with a printed reason when PostgreSQL is unreachable, except under {@code CI=true}.
 */
class PostgresDeliveryContractTest extends DeliveryContractTest {

    private String schema;

    @Override
    JdbcDeliveryStore openStore() {
        if (schema == null) {
            schema = Postgres.newSchema();
        }
        return JdbcDeliveryStore.open(Postgres.url(), JdbcDeliveryStore.Options.defaults().withSchema(schema)
                .withPoolSize(6));
    }

    @Override
    Connection rawConnection() throws SQLException {
        return DriverManager.getConnection(Postgres.url());
    }

    @Override
    String qualify(String table) {
        return "\"" + schema + "\"." + table;
    }

    @Override
    void dropStore() {
        Postgres.drop(schema);
    }
}
