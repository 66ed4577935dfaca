package dev.sluice.edge.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A request-path pattern of a route: literal segments, {@code {name}} or {@code *} for exactly one
 * segment, and a final {@code **} for any rest (including none). Everything else in a segment is
 * literal, so {@code /v1/labels:batch} matches only itself (the {@code :} of Google-style custom
 * methods is not special).
 *
 * <p>Matching looks at the path only (no query), compares case-sensitively and does not decode
 * percent-escapes: {@code /v1/label%73} is not {@code /v1/labels}. A pattern is compiled once per
 * configuration; {@link #matches(CharSequence)} allocates nothing. Immutable and thread-safe.
 */
public final class PathPattern {

    private final String text;
    private final String[] segments;   // null entry = one-segment wildcard
    private final boolean rest;        // ends in **

    private PathPattern(String text, String[] segments, boolean rest) {
        this.text = text;
        this.segments = segments;
        this.rest = rest;
    }

    /**
     * Compiles {@code pattern}.
     *
     * @throws IllegalArgumentException when it does not start with {@code /}, has an empty segment
     *     ({@code //}), uses {@code **} other than as the last segment, or contains whitespace or a
     *     {@code ?} / {@code #}
     */
    public static PathPattern compile(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        if (!pattern.startsWith("/")) {
            throw new IllegalArgumentException("must start with /, was \"" + pattern + "\"");
        }
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c <= ' ' || c == '?' || c == '#' || c >= 0x7f) {
                throw new IllegalArgumentException("must be a path without query, fragment or spaces, was \""
                        + pattern + "\"");
            }
        }
        if (pattern.equals("/")) {
            return new PathPattern(pattern, new String[0], false);
        }
        String body = pattern.endsWith("/") ? pattern.substring(1, pattern.length() - 1) : pattern.substring(1);
        String[] parts = body.split("/", -1);
        List<String> segments = new ArrayList<>(parts.length);
        boolean rest = false;
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (p.isEmpty()) {
                throw new IllegalArgumentException("has an empty segment, was \"" + pattern + "\"");
            }
            if (p.equals("**")) {
                if (i != parts.length - 1) {
                    throw new IllegalArgumentException("** must be the last segment, was \"" + pattern + "\"");
                }
                rest = true;
            } else if (p.equals("*") || (p.startsWith("{") && p.endsWith("}") && p.length() > 2)) {
                segments.add(null);
            } else if (p.contains("*") || p.contains("{") || p.contains("}")) {
                throw new IllegalArgumentException("a wildcard must be a whole segment (*, ** or {name}), was \""
                        + pattern + "\"");
            } else {
                segments.add(p);
            }
        }
        return new PathPattern(pattern, segments.toArray(new String[0]), rest);
    }

    /** Whether {@code path} (a request path without query, starting with {@code /}) matches. */
    public boolean matches(CharSequence path) {
        int n = path.length();
        if (n == 0 || path.charAt(0) != '/') {
            return false;
        }
        int pos = 1;
        for (String segment : segments) {
            if (pos > n) {
                return false;
            }
            int end = pos;
            while (end < n && path.charAt(end) != '/') {
                end++;
            }
            if (end == pos) {
                return false; // empty segment
            }
            if (segment != null && !regionEquals(path, pos, end, segment)) {
                return false;
            }
            pos = end + 1;
        }
        if (rest) {
            return true;
        }
        // all of the path consumed (pos == n + 1), or all but one trailing slash (pos == n)
        return pos >= n;
    }

    private static boolean regionEquals(CharSequence path, int from, int to, String literal) {
        if (to - from != literal.length()) {
            return false;
        }
        for (int i = 0; i < literal.length(); i++) {
            if (path.charAt(from + i) != literal.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The pattern as written in the configuration. */
    @Override
    public String toString() {
        return text;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathPattern p && p.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }
}
