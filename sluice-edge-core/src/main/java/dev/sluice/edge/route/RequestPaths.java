package dev.sluice.edge.route;

/**
 * The path the edge routes, costs and forwards: the request's path in one normal form, so that spellings an
 * upstream treats as the same resource are the same route here too (a client must not get
 * {@code /v1/labels:batch} at the cost of another route by writing it {@code /v1//labels:batch},
 * {@code /v1/labels%3Abatch} or {@code /v1/x/../labels:batch}).
 *
 * <p>Normalisation (RFC 3986 §6.2.2), in this order:
 * <ol>
 *   <li>percent-encoded unreserved characters ({@code ALPHA DIGIT - . _ ~}, §2.3) are decoded (§6.2.2.2), and
 *       so are {@code %3A} ({@code :}) and {@code %40} ({@code @}): a path segment may hold them literally
 *       (§3.3 {@code pchar}), so decoding never changes the path's structure, and {@code %3A} is how many
 *       clients write the colon of a custom method ({@code :batch}); other escapes keep their bytes, with
 *       upper-case hex (§6.2.2.1);</li>
 *   <li>empty segments are merged: {@code //} is one {@code /} (a decision, not RFC 3986, which keeps them:
 *       nginx's {@code merge_slashes}, Spring and most routers merge them, so an upstream behind the edge most
 *       likely does);</li>
 *   <li>dot segments are removed (§5.2.4 {@code remove_dot_segments}, also after step 1 decoded
 *       {@code %2E}); {@code ..} above the root stays at the root.</li>
 * </ol>
 * The upstream receives the normalised path (the query untouched), so it resolves what the edge decided on.
 *
 * <p>Refused (400), because no single reading exists or because the bytes are not a path: an ASCII control
 * byte or DEL anywhere in the target, raw or percent-encoded ({@code %00}–{@code %1F}, {@code %7F}); an
 * encoded {@code /} or {@code \} ({@code %2F}, {@code %5C}: one upstream splits segments on them, another
 * does not); a raw {@code \}; a {@code %} not followed by two hex digits.
 *
 * <p>Stateless and allocation-light: a path that is already normal is returned as the same string.
 */
public final class RequestPaths {

    /** The outcome of {@link #normalize}: the normal path, or why the target is refused. */
    public sealed interface Result permits Normal, Refused {}

    /** @param path the normalised path, starting with {@code /} (or {@code *} as received) */
    public record Normal(String path) implements Result {}

    /** @param detail why the target is refused, for the 400's {@code detail} */
    public record Refused(String detail) implements Result {}

    private static final String HEX = "0123456789ABCDEF";

    private RequestPaths() {
    }

    /** Whether {@code target} (path and query) holds an ASCII control byte or DEL. */
    public static boolean hasControl(CharSequence target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return true;
            }
        }
        return false;
    }

    /**
     * Normalises {@code path} (the request target's path, without query) as the class comment says; a target
     * that is not a path ({@code *}) is returned as it is.
     */
    public static Result normalize(String path) {
        if (hasControl(path)) {
            return new Refused("The request target holds a control character.");
        }
        if (!path.startsWith("/")) {
            return new Normal(path);
        }
        if (isNormal(path)) {
            return new Normal(path);
        }
        StringBuilder decoded = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '\\') {
                return new Refused("The request path holds a backslash.");
            }
            if (c != '%') {
                decoded.append(c);
                continue;
            }
            int hi = i + 2 < path.length() ? Character.digit(path.charAt(i + 1), 16) : -1;
            int lo = hi >= 0 ? Character.digit(path.charAt(i + 2), 16) : -1;
            if (hi < 0 || lo < 0) {
                return new Refused("The request path holds a '%' that is not followed by two hex digits.");
            }
            int v = hi * 16 + lo;
            i += 2;
            if (v < 0x20 || v == 0x7f) {
                return new Refused("The request path holds an encoded control character.");
            }
            if (v == '/' || v == '\\') {
                return new Refused("The request path holds an encoded '" + (char) v + "', which upstreams read "
                        + "in different ways.");
            }
            if (unreserved(v) || v == ':' || v == '@') {
                decoded.append((char) v);
            } else {
                decoded.append('%').append(HEX.charAt(v >> 4)).append(HEX.charAt(v & 0xf));
            }
        }
        return new Normal(removeDotSegments(mergeSlashes(decoded)));
    }

    /** No escape, no backslash, no {@code //}, no dot segment: nothing to do (the common case). */
    private static boolean isNormal(String path) {
        int n = path.length();
        for (int i = 0; i < n; i++) {
            char c = path.charAt(i);
            if (c == '%' || c == '\\') {
                return false;
            }
            if (c == '/' && i + 1 < n) {
                char next = path.charAt(i + 1);
                if (next == '/') {
                    return false;
                }
                if (next == '.' && (i + 2 == n || path.charAt(i + 2) == '/'
                        || (path.charAt(i + 2) == '.' && (i + 3 == n || path.charAt(i + 3) == '/')))) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean unreserved(int c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~';
    }

    private static String mergeSlashes(CharSequence p) {
        StringBuilder b = new StringBuilder(p.length());
        for (int i = 0; i < p.length(); i++) {
            char c = p.charAt(i);
            if (c == '/' && b.length() > 0 && b.charAt(b.length() - 1) == '/') {
                continue;
            }
            b.append(c);
        }
        return b.toString();
    }

    /** RFC 3986 §5.2.4 on an absolute path without empty segments. */
    static String removeDotSegments(String path) {
        String[] segments = path.substring(1).split("/", -1);
        java.util.ArrayDeque<String> out = new java.util.ArrayDeque<>(segments.length);
        boolean trailingSlash = false;
        for (int i = 0; i < segments.length; i++) {
            String s = segments[i];
            boolean last = i == segments.length - 1;
            if (s.equals(".")) {
                trailingSlash = last;
            } else if (s.equals("..")) {
                out.pollLast();
                trailingSlash = last;
            } else {
                out.addLast(s);
                trailingSlash = false;
            }
        }
        StringBuilder b = new StringBuilder(path.length());
        for (String s : out) {
            b.append('/').append(s);
        }
        if (trailingSlash || b.isEmpty()) {
            b.append('/');
        }
        return b.toString();
    }
}
