package dev.sluice.client.core;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.util.Objects;

/** What one attempt came back with: a response (as its normalised snapshot) or a failure. */
public sealed interface Answer {

    /**
     * An HTTP response.
     *
     * @param snapshot the response read by a dialect (status, outcome, hints, policies)
     * @param problemType the RFC 9457 problem {@code type} of the body when the transport read one
     *     (e.g. {@code ".../errors/cost_exceeds_burst"}), else {@code null}; the core matches its
     *     last path segment or fragment
     */
    record Response(RateLimitSnapshot snapshot, String problemType) implements Answer {
        public Response {
            Objects.requireNonNull(snapshot, "snapshot");
        }

        public static Response of(RateLimitSnapshot snapshot) {
            return new Response(snapshot, null);
        }
    }

    /** No HTTP answer. */
    record Failure(FailureKind kind, Throwable cause) implements Answer {
        public Failure {
            Objects.requireNonNull(kind, "kind");
        }
    }

    /** How far the request got before the exchange failed. */
    enum FailureKind {
        /** No byte of the request can have reached the server (connect refused or timed out). */
        NOT_SENT,
        /** The attempt timed out after the request started: the server may have acted on it. */
        TIMEOUT,
        /** The connection broke after the request started: the server may have acted on it. */
        CONNECTION_LOST
    }
}
