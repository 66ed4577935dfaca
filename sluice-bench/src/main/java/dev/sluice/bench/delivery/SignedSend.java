package dev.sluice.bench.delivery;

import dev.sluice.delivery.Destination;
import dev.sluice.delivery.Event;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.delivery.webhook.JdkWebhookTransport;
import dev.sluice.delivery.webhook.StandardWebhooks;
import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.time.Instant;

/**
 * One event POSTed outside Sluice's worker, signed as the worker signs it (Standard Webhooks): what
 * the db-scheduler peer's task and the "http alone" row each do per event, so that both send
 * exactly the worker's requests.
 */
final class SignedSend {

    /** The request timeout of every harness send (the worker's too). */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    private SignedSend() {}

    /**
     * Sends event {@code eventId} with {@code key} and {@code payload} to {@code destination}.
     *
     * @throws IllegalStateException unless the receiver answered 2xx
     */
    static void send(JdkWebhookTransport transport, TimeSource time, Destination destination, String eventId,
            String key, String payload) {
        Instant now = time.now();
        Event e = new Event(eventId, destination.name(), "order.paid", key, payload, now);
        TransportResult r = transport.send(StandardWebhooks.request(e, destination, now), TIMEOUT);
        if (!(r instanceof TransportResult.Answered a) || a.status() / 100 != 2) {
            throw new IllegalStateException("not delivered: " + r);
        }
    }
}
