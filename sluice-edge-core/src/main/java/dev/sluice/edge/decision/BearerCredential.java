package dev.sluice.edge.decision;

import java.util.List;

/**
 * Reads the API key from {@code Authorization: Bearer <token>} (RFC 6750 §2.1; SPEC §1: the key is
 * taken from the credential and nothing else). Never throws on field text.
 *
 * <p>Accepted: exactly one field line, the scheme {@code Bearer} in any case, one or more spaces,
 * then a {@code b64token} ({@code ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/"} then
 * {@code *"="}) of at most {@value #MAX_TOKEN_LENGTH} characters. Anything else is malformed.
 */
public final class BearerCredential {

    /** The longest token read; a longer one is malformed (no API key is this long). */
    public static final int MAX_TOKEN_LENGTH = 256;

    /** The outcome of reading the field. */
    public sealed interface Result permits Missing, Malformed, Token {}

    /** No {@code Authorization} field. */
    public record Missing() implements Result {}

    /**
     * A field that is not one well-formed bearer credential; {@code reason} says why.
     *
     * @param otherScheme true when the field is not a {@code Bearer} credential at all (another scheme such
     *     as {@code Basic}, or an empty field): RFC 6750 §3.1 counts that as a request without bearer
     *     credentials, so its challenge carries no error code
     */
    public record Malformed(String reason, boolean otherScheme) implements Result {
        /** A malformed {@code Bearer} credential. */
        public Malformed(String reason) {
            this(reason, false);
        }
    }

    /** A well-formed bearer token (not yet known to be a configured key). */
    public record Token(String value) implements Result {}

    private static final Missing MISSING = new Missing();

    private BearerCredential() {
    }

    /** Reads the {@code Authorization} field lines of one request. */
    public static Result parse(List<String> fieldLines) {
        if (fieldLines.isEmpty()) {
            return MISSING;
        }
        if (fieldLines.size() > 1) {
            return new Malformed("more than one Authorization field");
        }
        String v = fieldLines.get(0);
        int n = v.length();
        int i = 0;
        while (i < n && (v.charAt(i) == ' ' || v.charAt(i) == '\t')) {
            i++;
        }
        int schemeEnd = i;
        while (schemeEnd < n && v.charAt(schemeEnd) != ' ' && v.charAt(schemeEnd) != '\t') {
            schemeEnd++;
        }
        if (schemeEnd - i != 6 || !v.regionMatches(true, i, "Bearer", 0, 6)) {
            return new Malformed("not a Bearer credential", true); // another scheme, or nothing
        }
        if (n - i < 7 || v.charAt(i + 6) != ' ') {
            return new Malformed(n - i < 7 ? "empty token" : "the scheme is not followed by a space");
        }
        i += 6;
        while (i < n && v.charAt(i) == ' ') {
            i++;
        }
        int end = n;
        while (end > i && (v.charAt(end - 1) == ' ' || v.charAt(end - 1) == '\t')) {
            end--;
        }
        if (end == i) {
            return new Malformed("empty token");
        }
        if (end - i > MAX_TOKEN_LENGTH) {
            return new Malformed("token longer than " + MAX_TOKEN_LENGTH + " characters");
        }
        int j = i;
        while (j < end && isTokenChar(v.charAt(j))) {
            j++;
        }
        int body = j;
        while (j < end && v.charAt(j) == '=') {
            j++;
        }
        if (j != end || body == i) {
            return new Malformed("token has characters outside the b64token alphabet");
        }
        return new Token(v.substring(i, end));
    }

    private static boolean isTokenChar(char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/';
    }
}
