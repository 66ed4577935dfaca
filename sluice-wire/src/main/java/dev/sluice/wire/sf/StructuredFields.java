package dev.sluice.wire.sf;

import java.util.List;
import java.util.Objects;

/**
 * Parse and serialise Structured Field Values for HTTP (RFC 9651): Items, Lists and Dictionaries
 * with Inner Lists, Parameters and every bare type (Integer, Decimal, String, Token, Byte Sequence,
 * Boolean, Date, Display String).
 *
 * <pre>{@code
 * List<Member> policies = StructuredFields.parseList("\"burst\";q=20;w=2, \"daily\";q=10000;w=86400");
 * Item first = (Item) policies.get(0);
 * first.bareItem();          // SfString[value=burst]
 * first.parameter("q");      // SfInteger[value=20]
 * StructuredFields.serialize(policies);  // "\"burst\";q=20;w=2, \"daily\";q=10000;w=86400"
 * }</pre>
 *
 * <p><b>Parsing</b> follows RFC 9651 §4.2 strictly (a field that fails must be ignored whole), with
 * the leniencies the RFC recommends for Byte Sequences (missing padding and non-zero pad bits are
 * accepted, §4.2.7). Every parse method throws only {@link StructuredFieldParseException}. Several
 * field lines of one field are combined with {@code ", "} before parsing (RFC 9110 §5.3, RFC 9651
 * §4.2).
 *
 * <p><b>Serialising</b> follows RFC 9651 §4.1 and yields the canonical form. The model validates
 * ranges and alphabets when a value is built (an out-of-range integer, a bad token or key, a
 * decimal with more than 12 integer digits throw {@link IllegalArgumentException} there), so
 * serialising never fails. An empty List or Dictionary serialises to {@code ""}: the field should
 * then be omitted.
 *
 * <p>Stateless and thread-safe.
 */
public final class StructuredFields {

    private StructuredFields() {
    }

    // ---- parsing ----

    /**
     * Parses an Item field value (RFC 9651 §4.2.3).
     *
     * @throws StructuredFieldParseException if {@code fieldValue} is not a valid Item
     */
    public static Item parseItem(String fieldValue) {
        return Parser.parseItem(Objects.requireNonNull(fieldValue, "fieldValue"));
    }

    /**
     * Parses an Item from several field lines, combined with {@code ", "} first; a single Item
     * sent as two lines therefore fails to parse, as it should.
     *
     * @throws StructuredFieldParseException if the combined value is not a valid Item (also when
     *     {@code fieldLines} is empty)
     */
    public static Item parseItem(List<String> fieldLines) {
        return Parser.parseItem(combine(fieldLines));
    }

    /**
     * Parses a List field value (RFC 9651 §4.2.1). An empty or all-space value is the empty list.
     *
     * @return the members in order, unmodifiable
     * @throws StructuredFieldParseException if {@code fieldValue} is not a valid List
     */
    public static List<Member> parseList(String fieldValue) {
        return Parser.parseList(Objects.requireNonNull(fieldValue, "fieldValue"));
    }

    /**
     * Parses a List from several field lines (RFC 9110 §5.3: combined with {@code ", "}, so an
     * empty line between two others makes an empty member and fails, per RFC 9651 §4.2.1).
     *
     * @return the members in order, unmodifiable; empty when {@code fieldLines} is empty
     * @throws StructuredFieldParseException if the combined value is not a valid List
     */
    public static List<Member> parseList(List<String> fieldLines) {
        return Parser.parseList(combine(fieldLines));
    }

    /**
     * Parses a Dictionary field value (RFC 9651 §4.2.2). A repeated key keeps its first position
     * and takes its last value.
     *
     * @throws StructuredFieldParseException if {@code fieldValue} is not a valid Dictionary
     */
    public static Dictionary parseDictionary(String fieldValue) {
        return Parser.parseDictionary(Objects.requireNonNull(fieldValue, "fieldValue"));
    }

    /**
     * Parses a Dictionary from several field lines, combined with {@code ", "}.
     *
     * @throws StructuredFieldParseException if the combined value is not a valid Dictionary
     */
    public static Dictionary parseDictionary(List<String> fieldLines) {
        return Parser.parseDictionary(combine(fieldLines));
    }

    private static String combine(List<String> fieldLines) {
        return switch (fieldLines.size()) {
            case 0 -> "";
            case 1 -> fieldLines.get(0);
            default -> String.join(", ", fieldLines);
        };
    }

    // ---- serialising ----

    /** The canonical form of an Item field (RFC 9651 §4.1.3). */
    public static String serialize(Item item) {
        StringBuilder sb = new StringBuilder(32);
        Serializer.appendItem(sb, item);
        return sb.toString();
    }

    /** The canonical form of a List field (RFC 9651 §4.1.1); {@code ""} when empty. */
    public static String serialize(List<? extends Member> list) {
        StringBuilder sb = new StringBuilder(64);
        Serializer.appendList(sb, list);
        return sb.toString();
    }

    /** The canonical form of a Dictionary field (RFC 9651 §4.1.2); {@code ""} when empty. */
    public static String serialize(Dictionary dictionary) {
        StringBuilder sb = new StringBuilder(64);
        Serializer.appendDictionary(sb, dictionary);
        return sb.toString();
    }

    /** Appends the canonical form of an Item. */
    public static StringBuilder appendItem(StringBuilder sb, Item item) {
        Serializer.appendItem(sb, item);
        return sb;
    }

    /** Appends the canonical form of a List ({@code ", "} between members). */
    public static StringBuilder appendList(StringBuilder sb, List<? extends Member> list) {
        Serializer.appendList(sb, list);
        return sb;
    }

    /** Appends the canonical form of a Dictionary. */
    public static StringBuilder appendDictionary(StringBuilder sb, Dictionary dictionary) {
        Serializer.appendDictionary(sb, dictionary);
        return sb;
    }

    /** Appends the canonical form of a bare item (RFC 9651 §4.1.3.1). */
    public static StringBuilder appendBareItem(StringBuilder sb, BareItem bareItem) {
        Serializer.appendBareItem(sb, bareItem);
        return sb;
    }

    // ---- building blocks for writers that skip the model (the edge's per-response headers) ----

    /**
     * Appends {@code value} as an sf-string, quoted and escaped (RFC 9651 §4.1.6), without building
     * an {@link SfString}.
     *
     * @throws IllegalArgumentException if a character is outside printable ASCII; nothing is
     *     appended then
     */
    public static StringBuilder appendString(StringBuilder sb, CharSequence value) {
        int bad = Chars.firstNonPrintableAscii(value);
        if (bad >= 0) {
            throw new IllegalArgumentException(
                    "String may hold only printable ASCII (RFC 9651 §3.3.3); char 0x"
                            + Integer.toHexString(value.charAt(bad)) + " at index " + bad);
        }
        Serializer.appendString(sb, value);
        return sb;
    }

    /**
     * Appends {@code value} as an sf-integer (RFC 9651 §4.1.4), without building an
     * {@link SfInteger}.
     *
     * @throws IllegalArgumentException if {@code value} has more than 15 digits; nothing is
     *     appended then
     */
    public static StringBuilder appendInteger(StringBuilder sb, long value) {
        if (value > SfInteger.MAX_VALUE || value < SfInteger.MIN_VALUE) {
            throw new IllegalArgumentException("Integer out of range (15 digits at most, RFC 9651 §3.3.1): " + value);
        }
        return sb.append(value);
    }

    /** Whether {@code value} can be an sf-string: printable ASCII only (RFC 9651 §3.3.3). */
    public static boolean isValidString(CharSequence value) {
        return Chars.firstNonPrintableAscii(value) < 0;
    }

    /** Whether {@code key} is a valid key for a parameter or dictionary member (RFC 9651 §3.1.2). */
    public static boolean isValidKey(String key) {
        return Chars.isKey(key);
    }

    /** Whether {@code token} is a valid Token (RFC 9651 §3.3.4). */
    public static boolean isValidToken(String token) {
        return Chars.isToken(token);
    }
}
