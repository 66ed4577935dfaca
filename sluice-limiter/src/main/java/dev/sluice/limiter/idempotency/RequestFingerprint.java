package dev.sluice.limiter.idempotency;

import java.util.HexFormat;
import java.util.Objects;

/**
 * What makes two requests "the same request" for an {@code Idempotency-Key} (SPEC §3.11): method,
 * path and the SHA-256 digest of the body (computed by the edge while the body streams; the body of an
 * empty request digests to {@link #EMPTY_BODY_SHA256}). A retry whose fingerprint differs from the
 * recorded one is a client bug: 409 {@code idempotency_conflict}.
 *
 * @param target method and path
 * @param bodySha256 the body's SHA-256 as 64 lower-case hex digits
 */
public record RequestFingerprint(RequestTarget target, String bodySha256) {

    /** SHA-256 of zero bytes (FIPS 180-4 test value). */
    public static final String EMPTY_BODY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException when {@code bodySha256} is not 64 lower-case hex digits
     */
    public RequestFingerprint {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(bodySha256, "bodySha256");
        if (bodySha256.length() != 64) {
            throw new IllegalArgumentException("bodySha256: must be 64 hex digits, was " + bodySha256.length()
                    + " characters");
        }
        for (int i = 0; i < 64; i++) {
            char c = bodySha256.charAt(i);
            if (!(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'f')) {
                throw new IllegalArgumentException("bodySha256: must be lower-case hex digits");
            }
        }
    }

    /** A fingerprint from a raw 32-byte SHA-256 digest. */
    public static RequestFingerprint of(RequestTarget target, byte[] sha256) {
        if (sha256.length != 32) {
            throw new IllegalArgumentException("sha256: must be 32 bytes, was " + sha256.length);
        }
        return new RequestFingerprint(target, HexFormat.of().formatHex(sha256));
    }

    @Override
    public String toString() {
        return target + " sha256:" + bodySha256;
    }
}
