package dev.sluice.delivery;

/**
 * The store failed (a database error that retrying the transaction did not cure). The operation
 * did not take effect: every store operation is one transaction.
 */
public final class StoreException extends DeliveryException {

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    public StoreException(String message) {
        super(message);
    }
}
