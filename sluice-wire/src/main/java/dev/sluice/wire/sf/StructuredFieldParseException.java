package dev.sluice.wire.sf;

/**
 * A field value is not a valid structured field of the requested type (RFC 9651 §4.2). This is the
 * only exception the parsers throw; per RFC 9651 §4.2 the whole field is then to be ignored.
 *
 * <p>{@link #offset()} is the index in {@link #input()} where parsing stopped: for a value
 * combined from several field lines, an index into the combined text ({@code ", "} between
 * lines).
 */
public final class StructuredFieldParseException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient String input;
    private final int offset;

    StructuredFieldParseException(String reason, String input, int offset) {
        super(reason + " at offset " + offset);
        this.input = input;
        this.offset = offset;
    }

    /** The text that was parsed. */
    public String input() {
        return input;
    }

    /** Where in {@link #input()} parsing failed, {@code 0..input().length()}. */
    public int offset() {
        return offset;
    }
}
