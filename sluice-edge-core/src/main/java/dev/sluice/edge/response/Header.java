package dev.sluice.edge.response;

import java.util.Objects;

/**
 * One response header field the edge writes.
 *
 * @param name the field name as written ({@code RateLimit-Policy})
 * @param value the field value
 */
public record Header(String name, String value) {

    public Header {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }
}
