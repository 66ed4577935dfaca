package dev.sluice.delivery.webhook;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.spi.WebhookRequest;
import dev.sluice.wire.http.HttpFields;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks 1.0.0 symmetric signing (spec "Signature scheme" and "Webhook headers"): the
 * signed content is {@code msg_id.timestamp.payload}, signed with HMAC-SHA256 under the
 * destination's secret (base64, optionally prefixed {@code whsec_}), and sent as
 * {@code webhook-signature: v1,<base64 signature>} beside {@code webhook-id} and
 * {@code webhook-timestamp} (integer Unix seconds).
 *
 * <p>Sluice uses the event's idempotency key as {@code webhook-id}, the value receivers
 * deduplicate by, so it is the same on every attempt and on replay (SPEC §6.1). Thread-safe
 * (stateless).
 */
public final class StandardWebhooks {

    /** The secret prefix the spec uses for symmetric keys. */
    public static final String SECRET_PREFIX = "whsec_";

    private static final int MIN_SECRET_BYTES = 24; // spec: "at least 24 bytes"
    private static final int MAX_SECRET_BYTES = 64;

    private StandardWebhooks() {
    }

    /**
     * The key bytes of a secret.
     *
     * @param secret base64 of 24..64 bytes, optionally prefixed {@code whsec_}
     * @throws IllegalArgumentException if it is not base64 or has the wrong length (the message
     *     never repeats the secret)
     */
    public static byte[] decodeSecret(String secret) {
        String b64 = secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret;
        byte[] key;
        try {
            key = Base64.getDecoder().decode(b64);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("webhook secret must be base64 (optionally prefixed whsec_)");
        }
        if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
            throw new IllegalArgumentException("webhook secret must decode to " + MIN_SECRET_BYTES + ".."
                    + MAX_SECRET_BYTES + " bytes; got " + key.length);
        }
        return key;
    }

    /**
     * The {@code webhook-signature} value {@code v1,<base64 HMAC-SHA256(id.timestamp.payload)>}.
     *
     * @param secret the destination's secret (see {@link #decodeSecret(String)})
     * @param msgId the {@code webhook-id}
     * @param timestampSeconds the {@code webhook-timestamp}, Unix seconds
     * @param payload the exact body sent
     */
    public static String sign(String secret, String msgId, long timestampSeconds, String payload) {
        byte[] key = decodeSecret(secret);
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            byte[] digest = mac.doFinal((msgId + "." + timestampSeconds + "." + payload)
                    .getBytes(StandardCharsets.UTF_8));
            return "v1," + Base64.getEncoder().encodeToString(digest);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JDK", e);
        }
    }

    /**
     * The request of one attempt: POST {@code event.payload()} with {@code Content-Type:
     * application/json}, {@code Idempotency-Key} and {@code webhook-id} set to the event's
     * idempotency key, {@code webhook-timestamp} = {@code now} in Unix seconds (the attempt's
     * time, as the spec asks) and the signature.
     */
    public static WebhookRequest request(Event event, Destination destination, Instant now) {
        long ts = now.getEpochSecond();
        String key = event.idempotencyKey();
        HttpFields headers = HttpFields.builder()
                .add("Content-Type", "application/json")
                .add("Idempotency-Key", key)
                .add("webhook-id", key)
                .add("webhook-timestamp", Long.toString(ts))
                .add("webhook-signature", sign(destination.secret(), key, ts, event.payload()))
                .add("User-Agent", "sluice-delivery/0.1")
                .build();
        return new WebhookRequest(destination.url(), headers, event.payload());
    }
}
