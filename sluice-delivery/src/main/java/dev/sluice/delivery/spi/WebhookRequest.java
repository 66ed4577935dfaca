package dev.sluice.delivery.spi;

import dev.sluice.wire.http.HttpFields;
import java.net.URI;
import java.util.Objects;

/**
 * One POST a transport sends.
 *
 * @param url where
 * @param headers {@code Content-Type}, {@code Idempotency-Key}, the Standard Webhooks headers
 * @param body the payload, sent as UTF-8
 */
public record WebhookRequest(URI url, HttpFields headers, String body) {

    public WebhookRequest {
        Objects.requireNonNull(url, "url");
        Objects.requireNonNull(headers, "headers");
        Objects.requireNonNull(body, "body");
    }
}
