package dev.sluice.client.core;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
    record Response(RateLimitSnapshot snapshot, @Nullable String problemType) implements Answer {
        public Response {
            Objects.requireNonNull(snapshot, "snapshot");
        }

        public static Response of(RateLimitSnapshot snapshot) {
            return new Response(snapshot, null);
        }
    }

    /**
     * No HTTP answer.
     *
     * @param transportResends how many more times the transport itself may have sent the request
     *     within this attempt: 0 normally; 1 when the JDK HttpClient may have re-sent it underneath
     *     (a GET or HEAD whose connection closed before any response byte: JDK 21–25
     *     {@code MultiExchange}; see the README, "What the JDK does underneath"). The core counts
     *     each as an attempt of the call (SPEC §4.7: one retrying layer, honest counts).
     */
    record Failure(FailureKind kind, Throwable cause, int transportResends) implements Answer {
        public Failure {
            Objects.requireNonNull(kind, "kind");
            if (transportResends < 0) {
                throw new IllegalArgumentException("transportResends must be >= 0: " + transportResends);
            }
        }

        /** A failure sent once. */
        public Failure(FailureKind kind, Throwable cause) {
            this(kind, cause, 0);
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
