package dev.sluice.client;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * What {@code SluiceHttpClient.send} and {@code sendAsync} return: the JDK {@link HttpResponse}
 * of the attempt that succeeded, plus what the call took to get it. Code written against
 * {@code HttpResponse} needs no change; code that wants the figures checks
 * {@code response instanceof SluiceResponse<?> s}.
 *
 * @param <T> the body type
 */
public interface SluiceResponse<T> extends HttpResponse<T> {

    /** Attempts the call sent, this one included (the transport's own re-sends counted, SPEC §4.7). */
    int attempts();

    /** Time the call spent waiting: retry waits and time in the admission queue (pacer, slot, penalty). */
    Duration waited();

    /** The call's number in its client, as in {@link CallEvent#callId()}. */
    long callId();

    /** The Idempotency-Key every attempt carried, when the call had one. */
    Optional<String> idempotencyKey();
}
