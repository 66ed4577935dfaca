package dev.sluice.delivery;

/** An event with a malformed key, id or type; nothing was written. */
public final class InvalidEventException extends DeliveryException {

    public InvalidEventException(String message) {
        super(message);
    }
}
