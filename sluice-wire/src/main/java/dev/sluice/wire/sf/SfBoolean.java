package dev.sluice.wire.sf;

/**
 * A Boolean (RFC 9651 §3.3.6), serialised {@code ?1} / {@code ?0}. A parameter or dictionary member
 * whose value is {@code true} is serialised as its bare key.
 *
 * @param value the boolean
 */
public record SfBoolean(boolean value) implements BareItem {

    /** {@code ?1}. */
    public static final SfBoolean TRUE = new SfBoolean(true);

    /** {@code ?0}. */
    public static final SfBoolean FALSE = new SfBoolean(false);

    /** The shared instance for {@code value}. */
    public static SfBoolean of(boolean value) {
        return value ? TRUE : FALSE;
    }
}
