package dev.sluice.wire.sf;

import java.util.Objects;

/**
 * A String (RFC 9651 §3.3.3): zero or more printable ASCII characters ({@code 0x20..0x7E}).
 * Non-ASCII text belongs in an {@link SfDisplayString}.
 *
 * @param value the characters, unescaped
 */
public record SfString(String value) implements BareItem {

    /**
     * @throws IllegalArgumentException if a character is outside {@code 0x20..0x7E}
     * @throws NullPointerException if {@code value} is null
     */
    public SfString {
        Objects.requireNonNull(value, "value");
        int bad = Chars.firstNonPrintableAscii(value);
        if (bad >= 0) {
            throw new IllegalArgumentException(
                    "String may hold only printable ASCII (RFC 9651 §3.3.3); char 0x"
                            + Integer.toHexString(value.charAt(bad)) + " at index " + bad);
        }
    }

    /** Same as the constructor. */
    public static SfString of(String value) {
        return new SfString(value);
    }
}
