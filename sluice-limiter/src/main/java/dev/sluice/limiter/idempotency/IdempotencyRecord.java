package dev.sluice.limiter.idempotency;

import java.util.Objects;
import java.util.Optional;

/**
 * What a store holds for one {@link IdempotencyKey}, as {@link IdempotencyStore#lookup} shows it (for
 * operators and tests; the edge decides with {@link IdempotencyStore#begin}). Immutable.
 *
 * @param target the recorded request's method and path
 * @param fingerprint the full fingerprint; empty while the request is in flight
 * @param response the recorded answer; empty while the request is in flight
 */
public record IdempotencyRecord(RequestTarget target, Optional<RequestFingerprint> fingerprint,
        Optional<RecordedResponse> response) {

    public IdempotencyRecord {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(response, "response");
        if (fingerprint.isPresent() != response.isPresent()) {
            throw new IllegalArgumentException("fingerprint and response: both present or both empty");
        }
        fingerprint.ifPresent(f -> {
            if (!f.target().equals(target)) {
                throw new IllegalArgumentException("fingerprint: target " + f.target() + " differs from " + target);
            }
        });
    }

    /** Whether the first request still holds the in-flight marker. */
    public boolean inFlight() {
        return response.isEmpty();
    }
}
