package dev.sluice.edge.decision;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * An {@link ExchangeListener} that also sees the bytes of a forwarded exchange: the request body as
 * it streams to the upstream, and the upstream's response head and body (the idempotency stage digests
 * the one and records the other, SPEC §3.11). The edge streams; a tap that keeps bytes must bound what
 * it keeps.
 *
 * <p>Called on the request's event loop, in order: request chunks, then {@link #onRequestComplete},
 * then {@link #onResponseHead}, response chunks and {@link #onResponseComplete}; {@link #onEnd} last.
 * A chunk is only valid during the call (copy what you keep). Must not block or throw.
 */
public interface BodyTap extends ExchangeListener {

    /** A chunk of the request body on its way to the upstream. */
    default void onRequestBody(ByteBuffer chunk) {
    }

    /** The whole request body went to the upstream (called for a request without a body too). */
    default void onRequestComplete() {
    }

    /** The upstream's final response head: status and end-to-end header fields, in order. */
    default void onResponseHead(int status, List<Map.Entry<String, String>> fields) {
    }

    /** A chunk of the upstream's response body. */
    default void onResponseBody(ByteBuffer chunk) {
    }

    /** The upstream's response was read to its end (whether or not the client was still there for it). */
    default void onResponseComplete() {
    }

    /**
     * Whether the edge should keep reading the upstream's answer when the client goes away after the
     * whole request was sent (so that the answer can still be recorded). The upstream connection is then
     * held until the answer ends or the response timeout passes.
     */
    default boolean finishWithoutClient() {
        return false;
    }
}
