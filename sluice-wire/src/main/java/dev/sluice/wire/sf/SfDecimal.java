package dev.sluice.wire.sf;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A Decimal (RFC 9651 §3.3.2): at most 12 integer digits and 3 fractional digits, held exactly as
 * a count of thousandths (so {@code 1.5} is {@code 1500}, {@code -0.002} is {@code -2}).
 *
 * @param thousandths the value times 1000, {@code |thousandths| <= 999,999,999,999,999}
 */
public record SfDecimal(long thousandths) implements BareItem {

    /** The largest magnitude in thousandths: 999,999,999,999.999 (RFC 9651 §3.3.2). */
    public static final long MAX_THOUSANDTHS = 999_999_999_999_999L;

    /**
     * @throws IllegalArgumentException if the integer part has more than 12 digits
     */
    public SfDecimal {
        if (thousandths > MAX_THOUSANDTHS || thousandths < -MAX_THOUSANDTHS) {
            throw new IllegalArgumentException(
                    "Decimal out of range (12 integer digits at most, RFC 9651 §3.3.2): " + thousandths + "/1000");
        }
    }

    /** The decimal {@code thousandths / 1000}. */
    public static SfDecimal ofThousandths(long thousandths) {
        return new SfDecimal(thousandths);
    }

    /**
     * The decimal nearest {@code value} with 3 fractional digits, ties to even, as serialisation
     * requires (RFC 9651 §4.1.5): {@code 0.0025} becomes {@code 0.002}, {@code 9.9995} becomes
     * {@code 10.0}.
     *
     * @throws IllegalArgumentException if the rounded value has more than 12 integer digits
     */
    public static SfDecimal of(BigDecimal value) {
        BigDecimal rounded = value.setScale(3, RoundingMode.HALF_EVEN);
        BigDecimal limit = BigDecimal.valueOf(MAX_THOUSANDTHS, 3);
        if (rounded.abs().compareTo(limit) > 0) {
            throw new IllegalArgumentException(
                    "Decimal out of range (12 integer digits at most, RFC 9651 §3.3.2): " + value.toPlainString());
        }
        return new SfDecimal(rounded.unscaledValue().longValueExact());
    }

    /** This decimal exactly, with scale 3. */
    public BigDecimal toBigDecimal() {
        return BigDecimal.valueOf(thousandths, 3);
    }

    /** This decimal as the nearest double. */
    public double doubleValue() {
        return thousandths / 1000.0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(24).append("SfDecimal[");
        Serializer.appendDecimal(sb, thousandths);
        return sb.append(']').toString();
    }
}
