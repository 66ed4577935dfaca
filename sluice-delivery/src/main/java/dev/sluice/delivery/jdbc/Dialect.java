package dev.sluice.delivery.jdbc;

/** The SQL that differs between the two supported stores (SPEC §6.8). */
public enum Dialect {
    /** Embedded, single node: one writer at a time (WAL), no row locks, so no SKIP LOCKED. */
    SQLITE("sqlite", "MAX", ""),
    /** Many workers: claims lock rows and skip rows others hold (SPEC §6.7). */
    POSTGRESQL("postgresql", "GREATEST", " FOR UPDATE OF l SKIP LOCKED");

    private final String migrationFolder;
    private final String greatest;
    private final String claimLock;

    Dialect(String migrationFolder, String greatest, String claimLock) {
        this.migrationFolder = migrationFolder;
        this.greatest = greatest;
        this.claimLock = claimLock;
    }

    /** The folder of this dialect's versioned SQL under {@code dev/sluice/delivery/jdbc/migration/}. */
    String migrationFolder() {
        return migrationFolder;
    }

    /** The two-argument maximum function. */
    String greatest() {
        return greatest;
    }

    /** What follows the claim query to lock the claimed ledger rows and skip locked ones. */
    String claimLock() {
        return claimLock;
    }
}
