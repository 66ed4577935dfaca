package dev.sluice.edge.decision;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The id under which an API key appears in logs and events ({@code quota.warning}, SPEC §3.8; retry-loop
 * lines, SPEC §3.12): {@code k} and the first 12 hex digits of HMAC-SHA256(secret, key). Two keys get two
 * ids (one event per key is visible as such), the same key always the same id under one secret (across
 * restarts and replicas), and the key cannot be read back from it: the raw key never reaches a log line.
 *
 * <p>The secret is {@code key-id-secret} in the configuration; without one a fixed, public secret is used,
 * which keeps ids stable but lets whoever holds a log line test guesses of short, guessable keys against
 * it: set a secret when keys are not long random strings. An operator finds a key's id with
 * {@link #id(String)} under the same secret.
 *
 * <p>Immutable and thread-safe; ids are computed once per configured key when the configuration is
 * compiled, never per request.
 */
public final class KeyIds {

    /** The secret used when the configuration names none. */
    public static final String DEFAULT_SECRET = "sluice key id v1";

    /** The built-in ids (the default secret). */
    public static final KeyIds DEFAULT = new KeyIds(DEFAULT_SECRET);

    private static final int HEX_DIGITS = 12;

    private final SecretKeySpec secret;

    /**
     * @param secret the HMAC key, any non-empty string (UTF-8)
     * @throws IllegalArgumentException if it is empty
     */
    public KeyIds(String secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.isEmpty()) {
            throw new IllegalArgumentException("key-id-secret: must not be empty");
        }
        this.secret = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
    }

    /** The id of {@code apiKey}: {@code k} and 12 lower-case hex digits, e.g. {@code k3f9a1c2b7d4e}. */
    public String id(String apiKey) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            byte[] digest = mac.doFinal(apiKey.getBytes(StandardCharsets.UTF_8));
            return "k" + HexFormat.of().formatHex(digest, 0, HEX_DIGITS / 2);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("every JDK has HmacSHA256", e);
        }
    }
}
