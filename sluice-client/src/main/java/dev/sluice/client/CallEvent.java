package dev.sluice.client;

import java.net.URI;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The call a {@link ClientListener} event is about: one logical call, all its attempts (SPEC §4.9).
 *
 * @param callId the call's number in its client, from 0 in the order calls were opened
 * @param method the HTTP method, upper case
 * @param uri the request's URI; {@code null} when the driver did not give one (a simulator)
 * @param host the authority the per-host figures are kept under
 * @param idempotencyKey the Idempotency-Key every attempt carries (the caller's, or one the SDK
 *     minted), {@code null} for an idempotent call without one
 */
public record CallEvent(long callId, String method, @Nullable URI uri, String host,
        @Nullable String idempotencyKey) {

    /** The Idempotency-Key, when the call has one. */
    public Optional<String> key() {
        return Optional.ofNullable(idempotencyKey);
    }

    @Override
    public String toString() {
        return "call #" + callId + " " + method + " " + (uri != null ? uri : host)
                + (idempotencyKey != null ? " [Idempotency-Key " + idempotencyKey + "]" : "");
    }
}
