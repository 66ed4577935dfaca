package dev.sluice.delivery.jdbc;

import java.util.regex.Pattern;

/**
 * The store's table names, qualified with the schema when one is configured (PostgreSQL), so that
 * SQL run on a caller's own connection ({@link JdbcDeliveryStore#enqueue(java.sql.Connection,
 * dev.sluice.delivery.Event, java.time.Instant)}) finds them whatever its search path.
 */
record Tables(String destination, String event, String ledger, String deadLetter, String version) {

    private static final Pattern SCHEMA = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    static Tables in(String schema) {
        String p = schema == null ? "" : quote(schema) + ".";
        return new Tables(p + "sluice_destination", p + "sluice_event", p + "sluice_ledger",
                p + "sluice_dead_letter", p + "sluice_schema_version");
    }

    /**
     * @throws IllegalArgumentException unless the name is a plain lower-case identifier
     */
    static String quote(String schema) {
        if (!SCHEMA.matcher(schema).matches()) {
            throw new IllegalArgumentException("schema must match [a-z_][a-z0-9_]{0,62}: '" + schema + "'");
        }
        return "\"" + schema + "\"";
    }

    /** Replaces {@code $destination}, {@code $event}, {@code $ledger}, {@code $dead_letter}, {@code $version}. */
    String substitute(String sql) {
        return sql.replace("$dead_letter", deadLetter)
                .replace("$destination", destination)
                .replace("$event", event)
                .replace("$ledger", ledger)
                .replace("$version", version);
    }
}
