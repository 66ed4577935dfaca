package dev.sluice.delivery.jdbc;

import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the store is, parsed from the one-string form the config and CLI use:
 * {@code sqlite:PATH} (or {@code jdbc:sqlite:PATH}) for the embedded store, or a
 * {@code jdbc:postgresql:} URL.
 *
 * @param dialect which store
 * @param jdbcUrl the JDBC URL
 * @param sqlitePath the database file for SQLite, else {@code null}
 */
public record StoreLocation(Dialect dialect, String jdbcUrl, Path sqlitePath) {

    /** The default store: a SQLite file in the working directory. */
    public static final String DEFAULT = "sqlite:./sluice-delivery.db";

    /** {@code location} with any {@code password=} value masked, for messages and logs. */
    public static String redact(String location) {
        return location.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    /**
     * @throws IllegalArgumentException if {@code location} is neither form, or names no file
     */
    public static StoreLocation parse(String location) {
        Objects.requireNonNull(location, "location");
        String path = null;
        if (location.startsWith("sqlite:")) {
            path = location.substring("sqlite:".length());
        } else if (location.startsWith("jdbc:sqlite:")) {
            path = location.substring("jdbc:sqlite:".length());
        } else if (location.startsWith("jdbc:postgresql:")) {
            return new StoreLocation(Dialect.POSTGRESQL, location, null);
        } else {
            throw new IllegalArgumentException("store must be 'sqlite:PATH' or a 'jdbc:postgresql:' URL: '"
                    + location + "'");
        }
        if (path.isBlank() || path.startsWith(":memory:") || path.contains("?")) {
            throw new IllegalArgumentException("a SQLite store needs a file path (in-memory databases are not"
                    + " durable and not shared between connections): '" + location + "'");
        }
        Path file = Path.of(path);
        return new StoreLocation(Dialect.SQLITE, "jdbc:sqlite:" + file, file);
    }
}
