package dev.sluice.limiter.idempotency;

import java.util.Objects;

/**
 * The part of a request's fingerprint known from its head alone: method and target (SPEC §3.11). A
 * claim is made with it before the body has been read; the body's digest completes the
 * {@link RequestFingerprint} once the body has streamed through.
 *
 * @param method the request method as sent ({@code POST}); not empty
 * @param path the request target as sent: the path and, when it has one, {@code ?} and the query (the edge
 *     passes both: the same path with another query is another request); not empty
 */
public record RequestTarget(String method, String path) {

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException naming the field when one is empty
     */
    public RequestTarget {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        if (method.isEmpty()) {
            throw new IllegalArgumentException("method: must not be empty");
        }
        if (path.isEmpty()) {
            throw new IllegalArgumentException("path: must not be empty");
        }
    }

    @Override
    public String toString() {
        return method + " " + path;
    }
}
