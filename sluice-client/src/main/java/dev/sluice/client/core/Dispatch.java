package dev.sluice.client.core;

import dev.sluice.client.SluiceException;
import java.util.List;
import java.util.OptionalLong;

/**
 * What one {@link ClientCore#poll} asks the driver to do.
 *
 * @param start calls whose next attempt must start now (a pacer token and a slot are held for each)
 * @param failed calls that ended without starting: shed, expired, dropped locally, or refused by the
 *     pacer; complete each with its error
 * @param wakeAtNanos the monotonic reading at which to poll again even if nothing else happens;
 *     empty when only a new call or an answer can change anything
 */
public record Dispatch<A>(List<CoreCall<A>> start, List<Rejection<A>> failed, OptionalLong wakeAtNanos) {

    /** A call the core ended without starting. */
    public record Rejection<A>(CoreCall<A> call, SluiceException error) {
    }
}
