package dev.sluice.wire.sf;

import java.util.Objects;

/**
 * A Token (RFC 9651 §3.3.4): an ALPHA or {@code *} followed by tchar, {@code :} or {@code /}
 * characters, e.g. {@code text/html} or {@code foo}.
 *
 * @param value the token text
 */
public record SfToken(String value) implements BareItem {

    /**
     * @throws IllegalArgumentException if {@code value} is not a valid token
     * @throws NullPointerException if {@code value} is null
     */
    public SfToken {
        Objects.requireNonNull(value, "value");
        if (!Chars.isToken(value)) {
            throw new IllegalArgumentException("not a Token (RFC 9651 §3.3.4): \"" + value + "\"");
        }
    }

    /** Same as the constructor. */
    public static SfToken of(String value) {
        return new SfToken(value);
    }
}
