package dev.sluice.delivery.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Work on one connection, run by {@link Transactions} inside a transaction or for a read. */
@FunctionalInterface
interface SqlWork<T> {
    T run(Connection c) throws SQLException;
}
