package dev.sluice.delivery;

import dev.sluice.delivery.webhook.StandardWebhooks;
import java.net.URI;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where events go: a webhook receiver or partner endpoint with its own rate and signing secret.
 *
 * @param name the destination's stable name (letters, digits, {@code . _ -}; 1..100 characters);
 *     events name their destination by it
 * @param url the absolute {@code http} or {@code https} URL events are POSTed to
 * @param rate the destination's own token bucket (SPEC §6.2)
 * @param secret the Standard Webhooks signing secret: base64 of 24..64 random bytes, optionally
 *     prefixed {@code whsec_}
 * @param idempotent whether the receiver deduplicates by {@code Idempotency-Key} /
 *     {@code webhook-id}. When {@code false}, an ambiguous outcome (timeout or reset after the
 *     request was sent) is parked in {@link LedgerState#REVIEW} for a person instead of retried,
 *     since a blind retry could act twice.
 */
public record Destination(String name, URI url, Rate rate, String secret, boolean idempotent) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,100}");

    /**
     * @throws IllegalArgumentException if a field is malformed (see the component descriptions)
     */
    public Destination {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(rate, "rate");
        Objects.requireNonNull(secret, "secret");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "destination name must be 1..100 of [A-Za-z0-9._-]: '" + name + "'");
        }
        String scheme = url.getScheme();
        if (!url.isAbsolute() || url.getHost() == null
                || !("http".equalsIgnoreCase(scheme) || "https".equalsIgnoreCase(scheme))) {
            throw new IllegalArgumentException("destination url must be an absolute http(s) URL: " + url);
        }
        StandardWebhooks.decodeSecret(secret); // validates
    }

    /** The same destination with its secret hidden, for logs and status output. */
    @Override
    public String toString() {
        return "Destination[name=" + name + ", url=" + url + ", rate=" + rate
                + ", secret=***, idempotent=" + idempotent + "]";
    }
}
