package dev.sluice.delivery;

/** A dead letter, ledger row or review item id that does not exist. */
public final class NoSuchEntryException extends DeliveryException {

    public NoSuchEntryException(String message) {
        super(message);
    }
}
