package dev.sluice.wire.sf;

/** Character classes of RFC 9651 §3 as lookup tables; package-private helpers. */
final class Chars {

    private static final boolean[] TCHAR = new boolean[128];
    private static final boolean[] KEY = new boolean[128];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TCHAR[c] = true;
            KEY[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TCHAR[c] = true;
            KEY[c] = true;
        }
        for (char c = 'A'; c <= 'Z'; c++) {
            TCHAR[c] = true;
        }
        // tchar (RFC 9110 §5.6.2) plus ':' and '/' which sf-token allows (RFC 9651 §3.3.4)
        for (char c : "!#$%&'*+-.^_`|~:/".toCharArray()) {
            TCHAR[c] = true;
        }
        for (char c : "_-.*".toCharArray()) {
            KEY[c] = true;
        }
    }

    private Chars() {
    }

    static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    static boolean isAlpha(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    /** A character allowed after the first one of a token. */
    static boolean isTokenChar(char c) {
        return c < 128 && TCHAR[c];
    }

    /** A character allowed after the first one of a key. */
    static boolean isKeyChar(char c) {
        return c < 128 && KEY[c];
    }

    static boolean isKeyStart(char c) {
        return (c >= 'a' && c <= 'z') || c == '*';
    }

    static boolean isTokenStart(char c) {
        return isAlpha(c) || c == '*';
    }

    static boolean isToken(String s) {
        if (s.isEmpty() || !isTokenStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            if (!isTokenChar(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    static boolean isKey(String s) {
        if (s.isEmpty() || !isKeyStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            if (!isKeyChar(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** Index of the first character outside {@code 0x20..0x7E}, or -1. */
    static int firstNonPrintableAscii(CharSequence s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                return i;
            }
        }
        return -1;
    }

    /** Index of the first unpaired surrogate, or -1. */
    static int firstUnpairedSurrogate(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            } else if (Character.isLowSurrogate(c)) {
                return i;
            }
        }
        return -1;
    }

    static IllegalArgumentException badKey(String key) {
        return new IllegalArgumentException(
                "not a key (RFC 9651 §3.1.2: lcalpha or '*', then lcalpha, DIGIT, '_', '-', '.', '*'): \""
                        + key + "\"");
    }
}
