package dev.sluice.edge.decision;

import java.util.List;
import java.util.Objects;

/**
 * What the edge knows of a request when it decides (SPEC §3.1): the request line and the header
 * fields it reads, and nothing of the body. Built by the transport from an HTTP/1.1 request or an
 * HTTP/2 HEADERS frame.
 *
 * @param method the method as sent ({@code GET}, {@code POST}, ...)
 * @param path the request target's path, without query (not decoded)
 * @param authorization every {@code Authorization} field line, in order (usually zero or one)
 * @param contentLength every {@code Content-Length} field line, in order
 * @param bodyExpected whether a body follows the head (announced length &gt; 0, chunked, or an HTTP/2
 *     stream not ended by its HEADERS frame)
 * @param clientAddress the peer's IP address as text (the connection's, never a client-chosen header)
 * @param idempotencyKey every {@code Idempotency-Key} field line, in order (SPEC §3.11)
 * @param requestTimeout every {@code Request-Timeout} field line, in order: the client's own deadline in
 *     delay-seconds from when it sent the request (SPEC §3.9)
 * @param receivedNanos the edge's monotonic clock when the head arrived ({@code TimeSource.nanoTime()});
 *     deadlines are counted from it
 * @param query the request target's query, without the {@code ?} (not decoded); empty for none. Part of an
 *     idempotent request's fingerprint (SPEC §3.11): the same path with another query is another request
 */
public record RequestHead(String method, String path, List<String> authorization, List<String> contentLength,
        boolean bodyExpected, String clientAddress, List<String> idempotencyKey, List<String> requestTimeout,
        long receivedNanos, String query) {

    public RequestHead {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        authorization = List.copyOf(authorization);
        contentLength = List.copyOf(contentLength);
        Objects.requireNonNull(clientAddress, "clientAddress");
        idempotencyKey = List.copyOf(idempotencyKey);
        requestTimeout = List.copyOf(requestTimeout);
        Objects.requireNonNull(query, "query");
    }

    /** A head without a query. */
    public RequestHead(String method, String path, List<String> authorization, List<String> contentLength,
            boolean bodyExpected, String clientAddress, List<String> idempotencyKey, List<String> requestTimeout,
            long receivedNanos) {
        this(method, path, authorization, contentLength, bodyExpected, clientAddress, idempotencyKey, requestTimeout,
                receivedNanos, "");
    }

    /** The path and, when there is one, {@code ?} and the query: the target as the client sent it. */
    public String target() {
        return query.isEmpty() ? path : path + "?" + query;
    }

    /** This head with the query {@code q} (without {@code ?}; tests). */
    public RequestHead withQuery(String q) {
        return new RequestHead(method, path, authorization, contentLength, bodyExpected, clientAddress,
                idempotencyKey, requestTimeout, receivedNanos, q);
    }

    /** A head without {@code Idempotency-Key} or {@code Request-Timeout}, received at nanos 0. */
    public RequestHead(String method, String path, List<String> authorization, List<String> contentLength,
            boolean bodyExpected, String clientAddress) {
        this(method, path, authorization, contentLength, bodyExpected, clientAddress, List.of(), List.of(), 0);
    }

    /** A head with at most one {@code Authorization} value and no body (tests, usage calls). */
    public static RequestHead of(String method, String path, String authorization, String clientAddress) {
        return new RequestHead(method, path, authorization == null ? List.of() : List.of(authorization), List.of(),
                false, clientAddress);
    }

    /** This head with {@code Idempotency-Key} field lines (tests). */
    public RequestHead withIdempotencyKey(String... values) {
        return new RequestHead(method, path, authorization, contentLength, bodyExpected, clientAddress,
                List.of(values), requestTimeout, receivedNanos, query);
    }

    /** This head with {@code Request-Timeout} field lines (tests). */
    public RequestHead withRequestTimeout(String... values) {
        return new RequestHead(method, path, authorization, contentLength, bodyExpected, clientAddress,
                idempotencyKey, List.of(values), receivedNanos, query);
    }

    /** This head received at {@code nanos} on the edge's monotonic clock. */
    public RequestHead withReceivedNanos(long nanos) {
        return new RequestHead(method, path, authorization, contentLength, bodyExpected, clientAddress,
                idempotencyKey, requestTimeout, nanos, query);
    }
}
