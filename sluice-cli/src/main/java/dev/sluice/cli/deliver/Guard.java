package dev.sluice.cli.deliver;

import dev.sluice.delivery.DeliveryException;
import dev.sluice.delivery.InvalidEventException;
import dev.sluice.delivery.NoStoreException;
import dev.sluice.delivery.NoSuchEntryException;
import dev.sluice.delivery.ReplayRefusedException;
import dev.sluice.delivery.StoreException;
import dev.sluice.delivery.UnknownDestinationException;
import dev.sluice.config.ConfigException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * Turns the delivery worker's typed errors into one line on stderr and the exit codes the README
 * documents: 1 refused or not found (a replay refused, no such dead letter or ledger row, an
 * unknown destination), 2 bad configuration or input (the config file, an option's value, a
 * malformed key or payload), 3 no store or a store failure, 4 any other delivery error.
 */
final class Guard {

    static final int REFUSED = 1;
    static final int BAD_CONFIG = 2;
    static final int STORE = 3;
    static final int OTHER = 4;

    private Guard() {
    }

    /** Bad input from the user (a payload file that cannot be sent): one line, exit 2, nothing written. */
    static final class BadInputException extends RuntimeException {
        BadInputException(String message) {
            super(message, null, false, false);
        }
    }

    static int run(PrintWriter err, Callable<Integer> body) throws Exception {
        try {
            return body.call();
        } catch (BadInputException e) {
            err.println("sluice deliver: " + e.getMessage());
            return BAD_CONFIG;
        } catch (NoStoreException e) {
            err.println("sluice deliver: " + e.getMessage());
            return STORE;
        } catch (ConfigException e) {
            err.println("sluice deliver: " + e.getMessage());
            return BAD_CONFIG;
        } catch (ReplayRefusedException e) {
            err.println("sluice deliver: refused (" + e.reason().name().toLowerCase(java.util.Locale.ROOT) + "): "
                    + e.getMessage());
            return REFUSED;
        } catch (NoSuchEntryException | UnknownDestinationException e) {
            err.println("sluice deliver: " + e.getMessage());
            return REFUSED;
        } catch (StoreException e) {
            err.println("sluice deliver: store: " + e.getMessage());
            return STORE;
        } catch (InvalidEventException | IllegalArgumentException e) {
            err.println("sluice deliver: " + e.getMessage());
            return BAD_CONFIG;
        } catch (DeliveryException e) {
            err.println("sluice deliver: " + e.getMessage());
            return OTHER;
        }
    }
}
