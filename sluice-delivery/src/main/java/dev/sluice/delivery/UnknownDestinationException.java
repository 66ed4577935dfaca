package dev.sluice.delivery;

/** An event named a destination the store does not know; nothing was written. */
public final class UnknownDestinationException extends DeliveryException {

    private final String destination;

    public UnknownDestinationException(String destination) {
        super("unknown destination '" + destination + "' (register it first, or add it to the config)");
        this.destination = destination;
    }

    /** The name that was not found. */
    public String destination() {
        return destination;
    }
}
