package dev.sluice.wire.sf;

import java.util.Objects;

/**
 * A Display String (RFC 9651 §3.3.8): Unicode text, serialised as {@code %"..."} with the UTF-8
 * bytes outside printable ASCII (and {@code %}, {@code "}) percent-encoded in lower-case hex.
 *
 * @param value the text; any Unicode, but no unpaired surrogate (it has no UTF-8 form)
 */
public record SfDisplayString(String value) implements BareItem {

    /**
     * @throws IllegalArgumentException if {@code value} holds an unpaired surrogate
     * @throws NullPointerException if {@code value} is null
     */
    public SfDisplayString {
        Objects.requireNonNull(value, "value");
        int bad = Chars.firstUnpairedSurrogate(value);
        if (bad >= 0) {
            throw new IllegalArgumentException(
                    "Display String holds an unpaired surrogate at index " + bad + " (RFC 9651 §3.3.8: UTF-8 text)");
        }
    }

    /** Same as the constructor. */
    public static SfDisplayString of(String value) {
        return new SfDisplayString(value);
    }
}
