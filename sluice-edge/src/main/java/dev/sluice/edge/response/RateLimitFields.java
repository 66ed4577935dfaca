package dev.sluice.edge.response;

import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.wire.ratelimit.RateLimitWriter;
import dev.sluice.wire.ratelimit.ServiceLimit;
import dev.sluice.wire.sf.SfByteSequence;
import dev.sluice.wire.sf.StructuredFields;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The rate-limit fields of one plan (SPEC §2.1, §2.2, §3.8): the {@code RateLimit-Policy} value,
 * serialised once when the configuration is loaded, and the per-response {@code RateLimit} and
 * {@code RateLimit-Warning} values built from the limiter's {@link PolicyState}s. Only the
 * draft-11 structured-field form is ever written (R06).
 *
 * <p>Immutable and thread-safe.
 */
public final class RateLimitFields {

    /** {@code RateLimit-Policy} (draft-ietf-httpapi-ratelimit-headers-11 §5). */
    public static final String POLICY_FIELD = "RateLimit-Policy";
    /** {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers-11 §4). */
    public static final String LIMIT_FIELD = "RateLimit";
    /** {@code RateLimit-Warning}: Sluice's own soft-limit field (SPEC §3.8). */
    public static final String WARNING_FIELD = "RateLimit-Warning";

    private final Plan plan;
    private final String policyLine;
    private final SfByteSequence[] partitionKeys;
    private final int softLimitPercent;

    /**
     * Pre-serialises {@code plan}'s policy line.
     *
     * @param softLimitPercent the warning threshold, percent of a quota policy's {@code q} (1..100)
     */
    public RateLimitFields(Plan plan, int softLimitPercent) {
        this.plan = plan;
        this.softLimitPercent = softLimitPercent;
        List<dev.sluice.wire.ratelimit.QuotaPolicy> wire = new ArrayList<>(plan.size());
        partitionKeys = new SfByteSequence[plan.size()];
        for (int i = 0; i < plan.size(); i++) {
            Policy p = plan.policy(i);
            partitionKeys[i] = p.partitionKey() == null ? null
                    : new SfByteSequence(p.partitionKey().getBytes(StandardCharsets.UTF_8));
            // qu is left out for requests, the draft's default, to keep the common line short
            String unit = p.unit() == QuotaUnit.REQUESTS ? null : p.unit().wireName();
            wire.add(new dev.sluice.wire.ratelimit.QuotaPolicy(p.name(), p.quota(), p.windowSeconds(), unit,
                    partitionKeys[i]));
        }
        this.policyLine = RateLimitWriter.policies(wire);
    }

    public Plan plan() {
        return plan;
    }

    /** The constant {@code RateLimit-Policy} value: {@code "burst";q=20;w=2, "daily";q=10000;w=86400}. */
    public String policyLine() {
        return policyLine;
    }

    /**
     * The {@code RateLimit} value for {@code states} (plan order): {@code "burst";r=7;t=2,
     * "daily";r=2310;t=21600}.
     */
    public String limitLine(List<PolicyState> states) {
        StringBuilder sb = new StringBuilder(24 * states.size());
        for (int i = 0; i < states.size(); i++) {
            if (i > 0) {
                sb.append(RateLimitWriter.MEMBER_SEPARATOR);
            }
            PolicyState s = states.get(i);
            SfByteSequence pk = i < partitionKeys.length ? partitionKeys[i] : null;
            if (pk == null) {
                RateLimitWriter.appendServiceLimit(sb, s.policy().name(), s.remaining(), s.resetSeconds());
            } else {
                RateLimitWriter.appendServiceLimit(sb,
                        new ServiceLimit(s.policy().name(), s.remaining(), s.resetSeconds(), pk));
            }
        }
        return sb.toString();
    }

    /**
     * Whether {@code state} is a quota policy at or past the soft limit: {@code used ≥ threshold·q}
     * (SPEC §3.8).
     */
    public boolean pastSoftLimit(PolicyState state) {
        return state.policy() instanceof QuotaPolicy q && atOrAbove(state.used(), q.quota());
    }

    /**
     * Whether this charge made {@code state} cross the soft limit: {@code used − cost < threshold·q ≤
     * used} (SPEC §3.8). Exactly one request per key and window crosses it (refunds aside).
     *
     * @param cost what the request charged this policy
     */
    public boolean crossedSoftLimit(PolicyState state, long cost) {
        return pastSoftLimit(state) && !atOrAbove(state.used() - cost, state.policy().quota());
    }

    private boolean atOrAbove(long used, long quota) {
        // used / q >= pct / 100, in integers (q ≤ 2^53, pct ≤ 100: no overflow)
        return used * 100 >= (long) softLimitPercent * quota;
    }

    /**
     * The {@code RateLimit-Warning} value for the quota policies of {@code states} past the soft limit,
     * e.g. {@code "daily";used=8000;q=10000}; {@code null} when none is.
     */
    public String warningLine(List<PolicyState> states) {
        StringBuilder sb = null;
        for (PolicyState s : states) {
            if (!pastSoftLimit(s)) {
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

    /**
     * The headers every response to a key of this plan carries: {@code RateLimit-Policy},
     * {@code RateLimit} and, past the soft limit, {@code RateLimit-Warning} (SPEC §2.2, §3.8).
     */
    public List<Header> headers(List<PolicyState> states) {
        String warning = warningLine(states);
        return warning == null
                ? List.of(new Header(POLICY_FIELD, policyLine), new Header(LIMIT_FIELD, limitLine(states)))
                : List.of(new Header(POLICY_FIELD, policyLine), new Header(LIMIT_FIELD, limitLine(states)),
                        new Header(WARNING_FIELD, warning));
    }
}
