package dev.sluice.wire.sf;

import java.util.Base64;
import java.util.Random;

/**
 * Writes random RFC 8941 field values (no Date, no Display String) as text, deliberately
 * non-canonical where the grammar allows (leading zeros, {@code -0}, trailing fractional zeros,
 * optional whitespace, escapes, unpadded base64, repeated keys), and optionally mutates them into
 * near-valid text. Driven by the random source it is given, so a seed reproduces a value.
 */
final class Rfc8941FieldGenerator {

    private static final String B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    private static final String ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final String TOKEN_REST = ALPHA + "0123456789!#$%&'*+-.^_`|~:/";
    private static final String KEY_START = "abcdefghijklmnopqrstuvwxyz*";
    private static final String KEY_REST = "abcdefghijklmnopqrstuvwxyz0123456789_-.*";
    private static final String[] KEY_POOL = {"a", "b", "q", "w", "r", "t", "pk", "*x", "a-1", "k.y", "z_"};
    /** Characters that break or bend the grammar when inserted. */
    private static final String MUTATIONS = " \t,;=()\":?*-.0129aAzZ\\/_!{}[]~@%\u007f\u00e9";

    private final Random random;
    private final StringBuilder sb = new StringBuilder();

    Rfc8941FieldGenerator(Random random) {
        this.random = random;
    }

    String item() {
        sb.setLength(0);
        leadingSp();
        itemText();
        trailingSp();
        return sb.toString();
    }

    String list() {
        sb.setLength(0);
        leadingSp();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                ows();
                sb.append(',');
                ows();
            }
            member();
        }
        return sb.toString();
    }

    String dictionary() {
        sb.setLength(0);
        leadingSp();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                ows();
                sb.append(',');
                ows();
            }
            key();
            if (random.nextInt(4) == 0) {
                params(); // boolean true member
            } else {
                sb.append('=');
                member();
            }
        }
        return sb.toString();
    }

    /** {@code text} with one to three random insertions, deletions, replacements or a truncation. */
    String mutate(String text) {
        StringBuilder m = new StringBuilder(text);
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int pos = m.length() == 0 ? 0 : random.nextInt(m.length() + 1);
            char c = MUTATIONS.charAt(random.nextInt(MUTATIONS.length()));
            switch (random.nextInt(4)) {
                case 0 -> m.insert(pos, c);
                case 1 -> {
                    if (pos < m.length()) {
                        m.deleteCharAt(pos);
                    }
                }
                case 2 -> {
                    if (pos < m.length()) {
                        m.setCharAt(pos, c);
                    }
                }
                default -> m.setLength(pos);
            }
        }
        return m.toString();
    }

    private void member() {
        if (random.nextInt(4) == 0) {
            innerList();
        } else {
            itemText();
        }
    }

    private void innerList() {
        sb.append('(');
        sp(0);
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                sp(1);
            }
            itemText();
        }
        sp(0);
        sb.append(')');
        params();
    }

    private void itemText() {
        bare();
        params();
    }

    private void params() {
        int n = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0;
        for (int i = 0; i < n; i++) {
            sb.append(';');
            sp(0);
            key();
            if (random.nextInt(3) != 0) {
                sb.append('=');
                bare();
            }
        }
    }

    private void key() {
        if (random.nextInt(3) > 0) {
            sb.append(KEY_POOL[random.nextInt(KEY_POOL.length)]);
            return;
        }
        sb.append(KEY_START.charAt(random.nextInt(KEY_START.length())));
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            sb.append(KEY_REST.charAt(random.nextInt(KEY_REST.length())));
        }
    }

    private void bare() {
        switch (random.nextInt(7)) {
            case 0, 1 -> integer();
            case 2 -> decimal();
            case 3 -> string();
            case 4 -> token();
            case 5 -> byteSequence();
            default -> sb.append(random.nextBoolean() ? "?1" : "?0");
        }
    }

    private void integer() {
        if (random.nextInt(3) == 0) {
            sb.append('-');
        }
        digits(1 + random.nextInt(random.nextInt(4) == 0 ? 16 : 4)); // 16 digits is one too many
    }

    private void decimal() {
        if (random.nextInt(3) == 0) {
            sb.append('-');
        }
        digits(1 + random.nextInt(random.nextInt(4) == 0 ? 13 : 3)); // 13 is one too many
        sb.append('.');
        digits(1 + random.nextInt(random.nextInt(8) == 0 ? 4 : 3)); // so is 4
    }

    private void digits(int n) {
        for (int i = 0; i < n; i++) {
            sb.append((char) ('0' + random.nextInt(10)));
        }
    }

    private void string() {
        sb.append('"');
        int n = random.nextInt(8);
        for (int i = 0; i < n; i++) {
            char c = (char) (0x20 + random.nextInt(0x5F));
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append('"');
    }

    private void token() {
        sb.append(random.nextInt(10) == 0 ? '*' : ALPHA.charAt(random.nextInt(ALPHA.length())));
        int n = random.nextInt(6);
        for (int i = 0; i < n; i++) {
            sb.append(TOKEN_REST.charAt(random.nextInt(TOKEN_REST.length())));
        }
    }

    private void byteSequence() {
        byte[] bytes = new byte[random.nextInt(7)];
        random.nextBytes(bytes);
        String b64 = Base64.getEncoder().encodeToString(bytes);
        int data = b64.indexOf('=') < 0 ? b64.length() : b64.indexOf('=');
        switch (random.nextInt(8)) {
            // parsers should accept missing padding (RFC 8941 §4.2.7)
            case 0 -> b64 = b64.substring(0, data);
            // ... and non-zero pad bits (ibid.)
            case 1 -> {
                if (data > 0 && data < b64.length()) {
                    b64 = b64.substring(0, data - 1) + B64.charAt(random.nextInt(64)) + b64.substring(data);
                }
            }
            // a padding count no encoder writes
            case 2 -> b64 = b64.endsWith("==") ? b64.substring(0, b64.length() - 1) : b64 + "=";
            default -> { }
        }
        sb.append(':').append(b64).append(':');
    }

    private void leadingSp() {
        if (random.nextInt(5) == 0) {
            sp(1);
        }
    }

    private void trailingSp() {
        if (random.nextInt(5) == 0) {
            sp(1);
        }
    }

    private void sp(int min) {
        int n = min + (random.nextInt(3) == 0 ? random.nextInt(3) : 0);
        for (int i = 0; i < n; i++) {
            sb.append(' ');
        }
    }

    private void ows() {
        int n = random.nextInt(3) == 0 ? random.nextInt(3) : 0;
        for (int i = 0; i < n; i++) {
            sb.append(random.nextInt(4) == 0 ? '\t' : ' ');
        }
    }
}
