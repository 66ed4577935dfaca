package dev.sluice.wire.sf;

import org.jspecify.annotations.Nullable;

/**
 * Base64 (RFC 4648 §4) for Byte Sequences, straight from and to the field text without an
 * intermediate string. Decoding is as lenient as RFC 9651 §4.2.7 asks: missing {@code =} padding
 * and non-zero pad bits are accepted; anything else outside the alphabet is not.
 */
final class Base64Codec {

    private static final char[] ALPHABET =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();
    private static final byte[] VALUE = new byte[128];

    static {
        java.util.Arrays.fill(VALUE, (byte) -1);
        for (int i = 0; i < ALPHABET.length; i++) {
            VALUE[ALPHABET[i]] = (byte) i;
        }
    }

    private Base64Codec() {
    }

    /** Appends the padded base64 form of {@code bytes}. */
    static void encode(byte[] bytes, StringBuilder out) {
        int i = 0;
        int n = bytes.length;
        for (; i + 2 < n; i += 3) {
            int v = (bytes[i] & 0xFF) << 16 | (bytes[i + 1] & 0xFF) << 8 | (bytes[i + 2] & 0xFF);
            out.append(ALPHABET[v >>> 18]).append(ALPHABET[(v >>> 12) & 63])
                    .append(ALPHABET[(v >>> 6) & 63]).append(ALPHABET[v & 63]);
        }
        int rest = n - i;
        if (rest == 1) {
            int v = (bytes[i] & 0xFF) << 16;
            out.append(ALPHABET[v >>> 18]).append(ALPHABET[(v >>> 12) & 63]).append("==");
        } else if (rest == 2) {
            int v = (bytes[i] & 0xFF) << 16 | (bytes[i + 1] & 0xFF) << 8;
            out.append(ALPHABET[v >>> 18]).append(ALPHABET[(v >>> 12) & 63]).append(ALPHABET[(v >>> 6) & 63])
                    .append('=');
        }
    }

    /**
     * Decodes {@code s[from, to)}, or returns {@code null} with the offending index in
     * {@code errorAt[0]} when it is not base64: a character outside the alphabet, {@code =}
     * anywhere but the end, more than two {@code =}, or a length no encoder produces.
     */
    static byte @Nullable [] decode(CharSequence s, int from, int to, int[] errorAt) {
        int dataEnd = to;
        while (dataEnd > from && s.charAt(dataEnd - 1) == '=') {
            dataEnd--;
        }
        int pad = to - dataEnd;
        int n = dataEnd - from;
        if (pad > 2 || n % 4 == 1 || (pad > 0 && (n + pad) % 4 != 0)) {
            errorAt[0] = dataEnd;
            return null;
        }
        byte[] out = new byte[n / 4 * 3 + (n % 4 == 0 ? 0 : n % 4 - 1)];
        int o = 0;
        int acc = 0;
        int bits = 0;
        for (int i = from; i < dataEnd; i++) {
            char c = s.charAt(i);
            int v = c < 128 ? VALUE[c] : -1;
            if (v < 0) {
                errorAt[0] = i;
                return null;
            }
            acc = acc << 6 | v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out[o++] = (byte) (acc >>> bits);
                acc &= (1 << bits) - 1; // leftover bits, dropped at the end even if non-zero
            }
        }
        return out;
    }
}
