package dev.sluice.edge.keys;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How a key store keeps an API key: SHA-256 of its UTF-8 bytes, or HMAC-SHA-256 under a secret the
 * edge holds (then a copy of the table alone cannot be used to test guesses), as 64 lower-case hex
 * digits. The clear key is never stored. Thread-safe: one digest per thread.
 */
public final class KeyHashing {

    private static final HexFormat HEX = HexFormat.of();

    private final SecretKeySpec secret;
    private final ThreadLocal<Object> engine;

    /** @param secret the HMAC secret, or empty for plain SHA-256 */
    public KeyHashing(Optional<String> secret) {
        this.secret = secret.filter(s -> !s.isEmpty())
                .map(s -> new SecretKeySpec(s.getBytes(StandardCharsets.UTF_8), "HmacSHA256")).orElse(null);
        this.engine = ThreadLocal.withInitial(this::newEngine);
    }

    /** Plain SHA-256. */
    public static KeyHashing sha256() {
        return new KeyHashing(Optional.empty());
    }

    /** {@code "hmac-sha256"} or {@code "sha256"}. */
    public String algorithm() {
        return secret == null ? "sha256" : "hmac-sha256";
    }

    /** The 64-hex-digit digest of {@code apiKey}. */
    public String hash(String apiKey) {
        byte[] in = apiKey.getBytes(StandardCharsets.UTF_8);
        Object e = engine.get();
        byte[] out = e instanceof Mac mac ? mac.doFinal(in) : ((MessageDigest) e).digest(in);
        return HEX.formatHex(out);
    }

    private Object newEngine() {
        try {
            if (secret == null) {
                return MessageDigest.getInstance("SHA-256");
            }
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has SHA-256 and HmacSHA256", e);
        }
    }
}
