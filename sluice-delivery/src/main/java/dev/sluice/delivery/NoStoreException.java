package dev.sluice.delivery;

/**
 * There is no delivery store (ledger) at the location a read-only operation named: no SQLite file,
 * or a database without Sluice's tables. Nothing was created.
 */
public final class NoStoreException extends DeliveryException {

    private final String location;

    /**
     * @param location the store location as given (password redacted), e.g. {@code ./sluice-delivery.db}
     * @param detail why it is not a store, or {@code null}
     */
    public NoStoreException(String location, String detail) {
        super("no ledger at " + location + (detail == null ? "" : " (" + detail + ")"));
        this.location = location;
    }

    /** The location as given (password redacted). */
    public String location() {
        return location;
    }
}
