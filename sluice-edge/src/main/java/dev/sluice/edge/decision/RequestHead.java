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
 */
public record RequestHead(String method, String path, List<String> authorization, List<String> contentLength,
        boolean bodyExpected, String clientAddress) {

    public RequestHead {
        Objects.requireNonNull(method, "method");
        Objects.requireNonNull(path, "path");
        authorization = List.copyOf(authorization);
        contentLength = List.copyOf(contentLength);
        Objects.requireNonNull(clientAddress, "clientAddress");
    }

    /** A head with at most one {@code Authorization} value and no body (tests, usage calls). */
    public static RequestHead of(String method, String path, String authorization, String clientAddress) {
        return new RequestHead(method, path, authorization == null ? List.of() : List.of(authorization), List.of(),
                false, clientAddress);
    }
}
