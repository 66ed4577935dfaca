package dev.sluice.edge.decision;

import java.util.List;

/**
 * Reads {@code Content-Length} (RFC 9110 §8.6) for the decision: the cost of content-bytes policies
 * (SPEC §1). Never throws on field text.
 *
 * <p>Several lines, or a comma-separated list, are accepted only when every value is the same
 * (RFC 9110 §8.6 allows a recipient to accept that); a value is {@code 1*DIGIT} and at most 18
 * digits (so it fits a {@code long}). Negative, non-numeric, differing or too large values are
 * invalid: the edge answers 400 without reading the body.
 */
public final class ContentLength {

    /** The outcome of reading the field. */
    public sealed interface Result permits Absent, Invalid, Length {}

    /** No {@code Content-Length} field. */
    public record Absent() implements Result {}

    /** An unusable field; {@code reason} says why (for the problem's detail). */
    public record Invalid(String reason) implements Result {}

    /** The announced body length in bytes, ≥ 0. */
    public record Length(long bytes) implements Result {}

    private static final Absent ABSENT = new Absent();
    private static final int MAX_DIGITS = 18;

    private ContentLength() {
    }

    /** Reads the {@code Content-Length} field lines of one request. */
    public static Result parse(List<String> fieldLines) {
        if (fieldLines.isEmpty()) {
            return ABSENT;
        }
        long value = -1;
        for (String line : fieldLines) {
            int n = line.length();
            int i = 0;
            while (i <= n) {
                int comma = line.indexOf(',', i);
                int end = comma < 0 ? n : comma;
                int from = i;
                int to = end;
                while (from < to && (line.charAt(from) == ' ' || line.charAt(from) == '\t')) {
                    from++;
                }
                while (to > from && (line.charAt(to - 1) == ' ' || line.charAt(to - 1) == '\t')) {
                    to--;
                }
                if (from == to) {
                    return new Invalid("empty Content-Length value");
                }
                if (to - from > MAX_DIGITS) {
                    return new Invalid("Content-Length too large");
                }
                long v = 0;
                for (int k = from; k < to; k++) {
                    char c = line.charAt(k);
                    if (c < '0' || c > '9') {
                        return new Invalid("Content-Length is not a non-negative integer");
                    }
                    v = v * 10 + (c - '0');
                }
                if (value >= 0 && v != value) {
                    return new Invalid("differing Content-Length values");
                }
                value = v;
                if (comma < 0) {
                    break;
                }
                i = comma + 1;
            }
        }
        return new Length(value);
    }
}
