package dev.sluice.edge.response;

import dev.sluice.limiter.Plan;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.headers.RateLimitFields;
import dev.sluice.wire.ratelimit.RateLimitWriter;
import dev.sluice.wire.sf.StructuredFields;
import java.util.List;

/**
 * The rate-limit header fields of a response to an API key (SPEC §2.1, §2.2, §3.8): the plan's
 * {@code RateLimit-Policy} (serialised once per plan by {@link Plan#rateLimitPolicyField()}), the
 * per-response {@code RateLimit} (written by the limiter's {@link RateLimitFields}), and Sluice's own
 * {@code RateLimit-Warning} past the soft limit. Only the draft-11 structured-field form is ever
 * written (R06). Stateless and thread-safe.
 */
public final class LimitFields {

    /** {@code RateLimit-Policy} (draft-ietf-httpapi-ratelimit-headers-11). */
    public static final String POLICY_FIELD = "RateLimit-Policy";
    /** {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers-11). */
    public static final String LIMIT_FIELD = "RateLimit";
    /** {@code RateLimit-Warning}: the soft-limit field (SPEC §3.8), e.g. {@code "daily";used=8000;q=10000}. */
    public static final String WARNING_FIELD = "RateLimit-Warning";

    private LimitFields() {
    }

    /**
     * {@code RateLimit-Policy}, {@code RateLimit} and, when a quota policy is at or past
     * {@code softLimitPercent}, {@code RateLimit-Warning}.
     *
     * @param plan the plan the decision was made under ({@code Decision.plan()}: a shared store in
     *     fail-open mode reports its degraded plan)
     * @param states the policies' standing, in plan order
     * @param softLimitPercent the warning threshold, 1..100
     */
    public static List<Header> headers(Plan plan, List<PolicyState> states, int softLimitPercent) {
        Header policy = new Header(POLICY_FIELD, plan.rateLimitPolicyField());
        if (states.isEmpty()) {
            return List.of(policy); // nothing was read (a store that could not answer)
        }
        Header limit = new Header(LIMIT_FIELD, RateLimitFields.rateLimitField(states));
        String warning = warningLine(states, softLimitPercent);
        return warning == null ? List.of(policy, limit) : List.of(policy, limit, new Header(WARNING_FIELD, warning));
    }

    /** Whether {@code state} is a quota policy with {@code used ≥ softLimitPercent % of q} (SPEC §3.8). */
    public static boolean pastSoftLimit(PolicyState state, int softLimitPercent) {
        return state.policy() instanceof QuotaPolicy q && atOrAbove(state.used(), q.quota(), softLimitPercent);
    }

    /**
     * Whether the request that charged {@code cost} made {@code state} cross the soft limit:
     * {@code used − cost < threshold ≤ used}. Exactly one request per key and window crosses it
     * (refunds aside), so a shared store's replicas do not all warn.
     */
    public static boolean crossedSoftLimit(PolicyState state, long cost, int softLimitPercent) {
        return pastSoftLimit(state, softLimitPercent)
                && !atOrAbove(state.used() - cost, state.policy().quota(), softLimitPercent);
    }

    private static boolean atOrAbove(long used, long quota, int percent) {
        // used / q >= percent / 100 in integers (q ≤ 2^53, percent ≤ 100: no overflow)
        return used * 100 >= (long) percent * quota;
    }

    /**
     * The {@code RateLimit-Warning} value: one member per quota policy past the soft limit, e.g.
     * {@code "daily";used=8000;q=10000}; {@code null} when none is.
     */
    public static String warningLine(List<PolicyState> states, int softLimitPercent) {
        StringBuilder sb = null;
        for (PolicyState s : states) {
            if (!pastSoftLimit(s, softLimitPercent)) {
                continue;
            }
            if (sb == null) {
                sb = new StringBuilder(40);
            } else {
                sb.append(RateLimitWriter.MEMBER_SEPARATOR);
            }
            StructuredFields.appendString(sb, s.policy().name());
            sb.append(";used=").append(s.used()).append(";q=").append(s.policy().quota());
        }
        return sb == null ? null : sb.toString();
    }
}
