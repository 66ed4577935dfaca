package dev.sluice.wire.ratelimit;

import dev.sluice.wire.sf.SfByteSequence;
import dev.sluice.wire.sf.SfInteger;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One service limit item of a {@code RateLimit} field (draft-ietf-httpapi-ratelimit-headers-11;
 * SPEC §2.1): what is left of a named policy now, e.g. {@code "daily";r=2310;t=21600}.
 *
 * @param name the name of the policy it reports on, sent as an sf-string: printable ASCII only
 * @param remaining {@code r}: units left in the current window, {@code >= 0}
 * @param resetSeconds {@code t}: seconds until the quota is restored, {@code >= 0}; a ceiling,
 *     never optimistic (SPEC §1, §2.3); {@code null} when the server did not say
 * @param partitionKey {@code pk}, compared by decoded bytes; {@code null} when absent
 */
public record ServiceLimit(
        String name, long remaining, @Nullable Long resetSeconds, @Nullable SfByteSequence partitionKey) {

    /**
     * @throws IllegalArgumentException if {@code name} holds a character outside printable ASCII,
     *     {@code remaining} or {@code resetSeconds} is negative, or a number has more than 15
     *     digits (RFC 9651 §3.3.1)
     * @throws NullPointerException if {@code name} is null
     */
    public ServiceLimit {
        RateLimitWriter.checkString("name", Objects.requireNonNull(name, "name"));
        RateLimitWriter.checkNonNegative("r", remaining);
        if (resetSeconds != null) {
            RateLimitWriter.checkNonNegative("t", resetSeconds);
        }
    }

    /** A service limit without partition key. */
    public static ServiceLimit of(String name, long remaining, long resetSeconds) {
        return new ServiceLimit(name, remaining, resetSeconds, null);
    }
}
