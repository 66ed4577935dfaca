package dev.sluice.wire.http;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One HTTP response as the wire layer reads it: status code, header fields, and the body when the
 * caller has it (problem details and vendor error bodies carry limit information too).
 *
 * @param status the status code, 100..599
 * @param headers the header fields
 * @param body the body decoded as UTF-8, or {@code null} when absent or not read
 */
public record ResponseView(int status, HttpFields headers, @Nullable String body) {

    public ResponseView {
        Objects.requireNonNull(headers, "headers");
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("status must be 100..599: " + status);
        }
    }

    public static ResponseView of(int status, HttpFields headers) {
        return new ResponseView(status, headers, null);
    }
}
