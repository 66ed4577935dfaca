package dev.sluice.limiter.idempotency;

import java.util.Objects;

/**
 * The answer of {@link IdempotencyStore#begin}: what the edge does with a request carrying an
 * {@code Idempotency-Key} (SPEC §3.11). Immutable; switch over it with a pattern-matching
 * {@code switch}.
 * <ul>
 *   <li>{@link Acquired}: no record existed (or the previous claim's lease ran out); this request now
 *       holds the in-flight marker and goes on to the upstream;</li>
 *   <li>{@link InFlight}: a request with the same key and the same method and path holds the marker:
 *       409 with {@code Retry-After: 1};</li>
 *   <li>{@link Conflict}: the record (in flight or completed) is for another method or path: 409
 *       {@code idempotency_conflict};</li>
 *   <li>{@link Completed}: an answer was recorded for the same method and path; the edge compares the
 *       body digest once the retry's body has streamed through and replays the answer or answers 409
 *       {@code idempotency_conflict}.</li>
 * </ul>
 */
public sealed interface Claim permits Claim.Acquired, Claim.InFlight, Claim.Conflict, Claim.Completed {

    /**
     * This request holds the in-flight marker.
     *
     * @param token identifies this claim to {@link IdempotencyStore#complete} and
     *     {@link IdempotencyStore#abandon}; opaque, unique per claim within a store
     */
    record Acquired(String token) implements Claim {
        public Acquired {
            Objects.requireNonNull(token, "token");
        }
    }

    /**
     * Another request with this key and the same target is still in flight.
     *
     * @param target the in-flight request's method and path (equal to the caller's)
     */
    record InFlight(RequestTarget target) implements Claim {
        public InFlight {
            Objects.requireNonNull(target, "target");
        }
    }

    /**
     * The key is recorded for another method or path.
     *
     * @param recorded the recorded request's method and path
     */
    record Conflict(RequestTarget recorded) implements Claim {
        public Conflict {
            Objects.requireNonNull(recorded, "recorded");
        }
    }

    /**
     * An answer is recorded for this key and target.
     *
     * @param fingerprint the recorded request's full fingerprint (compare its body digest)
     * @param response the recorded answer
     */
    record Completed(RequestFingerprint fingerprint, RecordedResponse response) implements Claim {
        public Completed {
            Objects.requireNonNull(fingerprint, "fingerprint");
            Objects.requireNonNull(response, "response");
        }
    }
}
