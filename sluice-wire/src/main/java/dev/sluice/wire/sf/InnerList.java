package dev.sluice.wire.sf;

import java.util.List;
import java.util.Objects;

/**
 * An Inner List (RFC 9651 §3.1.1): items in parentheses with parameters of its own, e.g.
 * {@code ("foo" "bar");lvl=5}. Inner lists do not nest.
 *
 * @param items the items, in order (an unmodifiable copy)
 * @param parameters the parameters of the inner list itself
 */
public record InnerList(List<Item> items, Parameters parameters) implements Member {

    /**
     * @throws NullPointerException if an argument or an item is null
     */
    public InnerList {
        items = List.copyOf(items);
        Objects.requireNonNull(parameters, "parameters");
    }

    /** An inner list without parameters. */
    public static InnerList of(List<Item> items) {
        return new InnerList(items, Parameters.EMPTY);
    }

    /** An inner list with parameters. */
    public static InnerList of(List<Item> items, Parameters parameters) {
        return new InnerList(items, parameters);
    }
}
