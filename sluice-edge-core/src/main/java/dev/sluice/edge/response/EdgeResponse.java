package dev.sluice.edge.response;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A complete response the edge writes itself (a rejection, a usage report, an upstream error), as
 * plain values: the Netty layer only copies it to the wire, so everything about it is testable
 * without a socket.
 *
 * @param status the HTTP status code
 * @param headers the header fields in order (without {@code Content-Length}, which the transport
 *     adds)
 * @param body the body bytes; empty for none. The array is not copied: do not change it
 */
public record EdgeResponse(int status, List<Header> headers, byte[] body) {

    public EdgeResponse {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status: must be 100..599, was " + status);
        }
        headers = List.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }

    /** The first value of {@code name} (case-insensitive), if present. */
    public Optional<String> header(String name) {
        for (Header h : headers) {
            if (h.name().equalsIgnoreCase(name)) {
                return Optional.of(h.value());
            }
        }
        return Optional.empty();
    }

    /** This response with {@code more} headers appended. */
    public EdgeResponse withHeaders(List<Header> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<Header> all = new ArrayList<>(headers.size() + more.size());
        all.addAll(headers);
        all.addAll(more);
        return new EdgeResponse(status, Collections.unmodifiableList(all), body);
    }

    @Override
    public String toString() {
        return "EdgeResponse[" + status + ", " + headers + ", " + body.length + " bytes]";
    }
}
