package dev.sluice.wire.sf;

import java.util.Arrays;
import java.util.Objects;

/**
 * A Byte Sequence (RFC 9651 §3.3.5), serialised as base64 between colons: {@code :aGVsbG8=:}.
 *
 * <p>Equality is by content, so two sequences parsed from different spellings of the same bytes
 * (for example with non-zero pad bits, which parsers accept, RFC 9651 §4.2.7) are equal. The
 * array is copied in and out, so the value stays immutable.
 *
 * @param bytes the content; the accessor returns a copy
 */
public record SfByteSequence(byte[] bytes) implements BareItem {

    /**
     * @throws NullPointerException if {@code bytes} is null
     */
    public SfByteSequence {
        bytes = Objects.requireNonNull(bytes, "bytes").clone();
    }

    /** Same as the constructor. */
    public static SfByteSequence of(byte... bytes) {
        return new SfByteSequence(bytes);
    }

    /** A copy of the content. */
    @Override
    public byte[] bytes() {
        return bytes.clone();
    }

    /** The content itself, for the serialiser only: never hand it out. */
    byte[] bytesUnsafe() {
        return bytes;
    }

    /** The number of bytes. */
    public int length() {
        return bytes.length;
    }

    /** The byte at {@code index}. */
    public byte byteAt(int index) {
        return bytes[index];
    }

    /** Whether the content equals {@code other}, without copying. */
    public boolean contentEquals(byte[] other) {
        return Arrays.equals(bytes, other);
    }

    /** The canonical base64 form (RFC 4648 §4, padded), without the colons. */
    public String toBase64() {
        StringBuilder sb = new StringBuilder((bytes.length + 2) / 3 * 4);
        Base64Codec.encode(bytes, sb);
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SfByteSequence other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return "SfByteSequence[:" + toBase64() + ":]";
    }
}
