package dev.sluice.delivery;

import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.io.TempDir;

/** The contract on the embedded store: a SQLite file in a temporary folder. */
class SqliteDeliveryContractTest extends DeliveryContractTest {

    @TempDir
    Path dir;

    @Override
    JdbcDeliveryStore openStore() {
        return JdbcDeliveryStore.open("sqlite:" + dir.resolve("delivery.db"));
    }

    @Override
    Connection rawConnection() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("delivery.db"));
    }

    @Override
    String qualify(String table) {
        return table;
    }

    @Override
    void dropStore() {
        // @TempDir removes the file
    }
}
