package dev.sluice.wire.sf;

/**
 * An Integer (RFC 9651 §3.3.1): at most 15 decimal digits, so
 * {@code -999,999,999,999,999 ..= 999,999,999,999,999}.
 *
 * @param value the integer
 */
public record SfInteger(long value) implements BareItem {

    /** The largest magnitude an Integer may have (RFC 9651 §3.3.1). */
    public static final long MAX_VALUE = 999_999_999_999_999L;

    /** The smallest value an Integer may have (RFC 9651 §3.3.1). */
    public static final long MIN_VALUE = -MAX_VALUE;

    /**
     * @throws IllegalArgumentException if {@code value} has more than 15 digits
     */
    public SfInteger {
        if (value > MAX_VALUE || value < MIN_VALUE) {
            throw new IllegalArgumentException("Integer out of range (15 digits at most, RFC 9651 §3.3.1): " + value);
        }
    }

    /** Same as the constructor; reads better in a chain. */
    public static SfInteger of(long value) {
        return new SfInteger(value);
    }
}
