package dev.sluice.redis.client;

import dev.sluice.redis.internal.HashTags;
import java.util.Objects;

/**
 * The Redis keys of one shared provider limit: {@code <prefix>{<limit name>}:bucket} and
 * {@code <prefix>{<limit name>}:budget}. The braces are a Redis Cluster hash tag, so both keys of a
 * limit live in one slot; {@code % { }} in the name are escaped, so the tag is exactly the name.
 */
record SharedKeys(String bucket, String budget) {

    static SharedKeys of(String prefix, String limitName) {
        Objects.requireNonNull(prefix, "prefix");
        Objects.requireNonNull(limitName, "limitName");
        if (limitName.isEmpty()) {
            throw new IllegalArgumentException("limitName must not be empty: it names the provider limit the"
                    + " processes share, e.g. \"api.example.com\"");
        }
        String tagged = prefix + "{" + escape(limitName) + "}:";
        return new SharedKeys(tagged + "bucket", tagged + "budget");
    }

    static String escape(String name) {
        return HashTags.escape(name);
    }
}
