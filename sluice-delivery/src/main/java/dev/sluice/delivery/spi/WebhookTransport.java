package dev.sluice.delivery.spi;

import java.time.Duration;

/**
 * Sends one webhook request. The default is
 * {@link dev.sluice.delivery.webhook.JdkWebhookTransport} (JDK {@code HttpClient}); tests plug in
 * scripted ones.
 *
 * <p>Implementations are thread-safe: a worker calls {@code send} from several threads.
 */
public interface WebhookTransport extends AutoCloseable {

    /**
     * Sends {@code request} and waits at most {@code timeout} for the answer's status and headers.
     * Never throws for network failures: they are {@link TransportResult.Failed} results.
     */
    TransportResult send(WebhookRequest request, Duration timeout);

    @Override
    default void close() {
    }
}
