package dev.sluice.wire.ratelimit;

import dev.sluice.wire.sf.SfByteSequence;
import dev.sluice.wire.sf.SfInteger;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One quota policy item of a {@code RateLimit-Policy} field (draft-ietf-httpapi-ratelimit-headers-11;
 * SPEC §2.1): a named quota of {@code q} units per window of {@code w} seconds, e.g.
 * {@code "daily";q=10000;w=86400}.
 *
 * @param name the policy name, sent as an sf-string: printable ASCII only
 * @param quota {@code q}: the units the window allows, {@code >= 0}
 * @param windowSeconds {@code w}: the window length in seconds, {@code > 0}; {@code null} when the
 *     server did not say
 * @param quotaUnit {@code qu}: {@link #UNIT_REQUESTS}, {@link #UNIT_CONTENT_BYTES},
 *     {@link #UNIT_CONCURRENT_REQUESTS} or any other unit a server sent, kept as text; {@code null}
 *     when absent (which means requests, see {@link #effectiveQuotaUnit()})
 * @param partitionKey {@code pk}: the partition the quota applies to, compared by its decoded
 *     bytes; {@code null} when absent
 */
public record QuotaPolicy(
        String name, long quota, @Nullable Long windowSeconds, @Nullable String quotaUnit,
        @Nullable SfByteSequence partitionKey) {

    /** {@code qu="requests"}: the draft's default unit. */
    public static final String UNIT_REQUESTS = "requests";
    /** {@code qu="content-bytes"}. */
    public static final String UNIT_CONTENT_BYTES = "content-bytes";
    /** {@code qu="concurrent-requests"}. */
    public static final String UNIT_CONCURRENT_REQUESTS = "concurrent-requests";

    /**
     * @throws IllegalArgumentException if {@code name} or {@code quotaUnit} holds a character
     *     outside printable ASCII, {@code quota} is negative, {@code windowSeconds} is not positive,
     *     or a number has more than 15 digits (RFC 9651 §3.3.1)
     * @throws NullPointerException if {@code name} is null
     */
    public QuotaPolicy {
        RateLimitWriter.checkString("name", Objects.requireNonNull(name, "name"));
        if (quota < 0 || quota > SfInteger.MAX_VALUE) {
            throw new IllegalArgumentException("q must be 0.." + SfInteger.MAX_VALUE + ": " + quota);
        }
        if (windowSeconds != null && (windowSeconds <= 0 || windowSeconds > SfInteger.MAX_VALUE)) {
            throw new IllegalArgumentException("w must be 1.." + SfInteger.MAX_VALUE + " seconds: " + windowSeconds);
        }
        if (quotaUnit != null) {
            RateLimitWriter.checkString("qu", quotaUnit);
        }
    }

    /** A policy of {@code quota} requests per {@code windowSeconds}, without unit or partition key. */
    public static QuotaPolicy of(String name, long quota, long windowSeconds) {
        return new QuotaPolicy(name, quota, windowSeconds, null, null);
    }

    /** The unit the quota counts: {@code qu}, or {@code "requests"} when the server sent none. */
    public String effectiveQuotaUnit() {
        return quotaUnit == null ? UNIT_REQUESTS : quotaUnit;
    }
}
