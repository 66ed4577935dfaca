package dev.sluice.wire.sf;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * An Item (RFC 9651 §3.3): a bare item with parameters, e.g. {@code "burst";q=20;w=2}.
 *
 * @param bareItem the value
 * @param parameters its parameters, in order; {@link Parameters#EMPTY} when none
 */
public record Item(BareItem bareItem, Parameters parameters) implements Member {

    /**
     * @throws NullPointerException if an argument is null
     */
    public Item {
        Objects.requireNonNull(bareItem, "bareItem");
        Objects.requireNonNull(parameters, "parameters");
    }

    /** An item without parameters. */
    public static Item of(BareItem bareItem) {
        return new Item(bareItem, Parameters.EMPTY);
    }

    /** An item with parameters. */
    public static Item of(BareItem bareItem, Parameters parameters) {
        return new Item(bareItem, parameters);
    }

    /** The parameter {@code key}, or {@code null} when absent. */
    public @Nullable BareItem parameter(String key) {
        return parameters.get(key);
    }
}
