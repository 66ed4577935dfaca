package dev.sluice.limiter.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RequestFingerprintTest {

    @Test
    void theEmptyBodyDigestIsSha256OfNothing() throws Exception {
        byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(new byte[0]);
        RequestFingerprint f = RequestFingerprint.of(new RequestTarget("POST", "/v1/labels"), d);

        assertThat(f.bodySha256()).isEqualTo(RequestFingerprint.EMPTY_BODY_SHA256);
    }

    @Test
    void aDigestThatIsNotSixtyFourLowerCaseHexDigitsIsRefused() {
        RequestTarget t = new RequestTarget("POST", "/v1/labels");
        assertThatThrownBy(() -> new RequestFingerprint(t, "abc"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("bodySha256");
        assertThatThrownBy(() -> new RequestFingerprint(t, RequestFingerprint.EMPTY_BODY_SHA256.toUpperCase()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("bodySha256");
    }

    @Test
    void anIdempotencyKeyValueIsOneTo255PrintableAsciiCharacters() {
        assertThat(IdempotencyKey.problemWith("5f1c2b7e-9f2a-4c1e-8b1a-7d1e2f3a4b5c")).isNull();
        assertThat(IdempotencyKey.problemWith("")).isEqualTo("must not be empty");
        assertThat(IdempotencyKey.problemWith("x".repeat(256))).startsWith("must be at most 255");
        assertThat(IdempotencyKey.problemWith("caf\u00e9")).isEqualTo("must be printable ASCII");
        assertThatThrownBy(() -> new IdempotencyKey("sk", "a\tb"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("value");
    }
}
