package dev.sluice.wire.ratelimit;

import dev.sluice.wire.sf.SfByteSequence;
import dev.sluice.wire.sf.SfInteger;
import dev.sluice.wire.sf.StructuredFields;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Writes {@code RateLimit-Policy} and {@code RateLimit} field values
 * (draft-ietf-httpapi-ratelimit-headers-11; SPEC §2.1) in canonical RFC 9651 form, straight into a
 * {@link StringBuilder} without building a structured-field model:
 *
 * <pre>{@code
 * // once per plan (SPEC §2.2): the policy line never changes
 * String policyLine = RateLimitWriter.policies(List.of(
 *         QuotaPolicy.of("burst", 20, 2), QuotaPolicy.of("daily", 10_000, 86_400)));
 * // "burst";q=20;w=2, "daily";q=10000;w=86400
 *
 * // per response: reuse a StringBuilder, no other allocation
 * sb.setLength(0);
 * RateLimitWriter.appendServiceLimit(sb, "burst", 7, 2);
 * sb.append(RateLimitWriter.MEMBER_SEPARATOR);
 * RateLimitWriter.appendServiceLimit(sb, "daily", 2310, 21_600);
 * // "burst";r=7;t=2, "daily";r=2310;t=21600
 * }</pre>
 *
 * <p>Parameters are written in the draft's order: {@code q}, {@code w}, {@code qu}, {@code pk} for a
 * policy; {@code r}, {@code t}, {@code pk} for a service limit. Optional ones are left out when
 * absent.
 *
 * <p><b>Negative {@code r} or {@code t} are refused, not clamped.</b> They can only come from a
 * limiter bug (a stale window, a clock step: regression case R02), and clamping {@code t} to 0 would
 * tell every client to come straight back, which breaks the rule that {@code t} is a ceiling and
 * never optimistic (SPEC §1, §2.3). The {@link IllegalArgumentException} makes the bug visible where
 * it happens; the limiter must recompute from its current state. Every check runs before anything is
 * appended, so a refused call leaves the builder as it was.
 *
 * <p>Stateless and thread-safe (the builders passed in are the caller's).
 */
public final class RateLimitWriter {

    /** What separates two members of a List field (RFC 9651 §4.1.1). */
    public static final String MEMBER_SEPARATOR = ", ";

    private RateLimitWriter() {
    }

    /**
     * The {@code RateLimit-Policy} field value for {@code policies}, in order. Serialise it once per
     * plan and reuse the string (SPEC §2.2).
     *
     * @return the field value; {@code ""} for no policies (then omit the field)
     */
    public static String policies(List<QuotaPolicy> policies) {
        StringBuilder sb = new StringBuilder(32 * policies.size());
        for (int i = 0; i < policies.size(); i++) {
            if (i > 0) {
                sb.append(MEMBER_SEPARATOR);
            }
            appendPolicy(sb, policies.get(i));
        }
        return sb.toString();
    }

    /**
     * Appends one quota policy item, without separator: {@code "daily";q=10000;w=86400}.
     *
     * @return {@code sb}
     */
    public static StringBuilder appendPolicy(StringBuilder sb, QuotaPolicy policy) {
        StructuredFields.appendString(sb, policy.name());
        sb.append(";q=").append(policy.quota());
        if (policy.windowSeconds() != null) {
            sb.append(";w=").append(policy.windowSeconds().longValue());
        }
        if (policy.quotaUnit() != null) {
            sb.append(";qu=");
            StructuredFields.appendString(sb, policy.quotaUnit());
        }
        appendPartitionKey(sb, policy.partitionKey());
        return sb;
    }

    /**
     * The {@code RateLimit} field value for {@code limits}, in order.
     *
     * @return the field value; {@code ""} for no limits (then omit the field)
     */
    public static String serviceLimits(List<ServiceLimit> limits) {
        StringBuilder sb = new StringBuilder(32 * limits.size());
        for (int i = 0; i < limits.size(); i++) {
            if (i > 0) {
                sb.append(MEMBER_SEPARATOR);
            }
            appendServiceLimit(sb, limits.get(i));
        }
        return sb.toString();
    }

    /**
     * Appends one service limit item, without separator: {@code "burst";r=7;t=2}.
     *
     * @return {@code sb}
     */
    public static StringBuilder appendServiceLimit(StringBuilder sb, ServiceLimit limit) {
        StructuredFields.appendString(sb, limit.name());
        sb.append(";r=").append(limit.remaining());
        if (limit.resetSeconds() != null) {
            sb.append(";t=").append(limit.resetSeconds().longValue());
        }
        appendPartitionKey(sb, limit.partitionKey());
        return sb;
    }

    /**
     * Appends one service limit item from plain values, without separator and without allocating:
     * the edge's per-response path. {@code "burst", 7, 2} appends {@code "burst";r=7;t=2}.
     *
     * @param name the policy name, printable ASCII
     * @param remaining {@code r}, {@code >= 0}
     * @param resetSeconds {@code t}, {@code >= 0}, already rounded up to whole seconds
     * @return {@code sb}
     * @throws IllegalArgumentException if {@code remaining} or {@code resetSeconds} is negative or
     *     has more than 15 digits, or {@code name} holds a character outside printable ASCII;
     *     nothing is appended then
     */
    public static StringBuilder appendServiceLimit(StringBuilder sb, String name, long remaining, long resetSeconds) {
        checkNonNegative("r", remaining);
        checkNonNegative("t", resetSeconds);
        StructuredFields.appendString(sb, name); // checks before it appends
        return sb.append(";r=").append(remaining).append(";t=").append(resetSeconds);
    }

    private static void appendPartitionKey(StringBuilder sb, @Nullable SfByteSequence partitionKey) {
        if (partitionKey != null) {
            sb.append(";pk=");
            StructuredFields.appendBareItem(sb, partitionKey);
        }
    }

    static void checkNonNegative(String parameter, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(parameter + " must not be negative (t is a ceiling, SPEC §2.3; R02): " + value);
        }
        if (value > SfInteger.MAX_VALUE) {
            throw new IllegalArgumentException(
                    parameter + " has more than 15 digits (RFC 9651 §3.3.1): " + value);
        }
    }

    static void checkString(String what, String value) {
        if (!StructuredFields.isValidString(value)) {
            throw new IllegalArgumentException(
                    what + " must be printable ASCII to travel as an sf-string (RFC 9651 §3.3.3): \"" + value + "\"");
        }
    }
}
