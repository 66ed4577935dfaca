package dev.sluice.limiter.headers;

import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.QuotaUnit;
import dev.sluice.wire.ratelimit.QuotaPolicy;
import dev.sluice.wire.ratelimit.RateLimitWriter;
import dev.sluice.wire.ratelimit.ServiceLimit;
import dev.sluice.wire.sf.SfByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns limiter results into the two header fields of draft-ietf-httpapi-ratelimit-headers-11
 * (SPEC §2.1): the plan's {@code RateLimit-Policy} and the per-response {@code RateLimit}. The edge
 * and {@code sluice replay} write exactly what this class writes.
 *
 * <p>{@code qu} is omitted for request policies (the draft's default unit) and written for the
 * others; {@code pk} is the UTF-8 bytes of the policy's partition key. A concurrency policy has no
 * window: its {@code RateLimit-Policy} item has no {@code w}, and its {@code RateLimit} item carries
 * {@code t} only on a denial (where it equals the Retry-After). Thread-safe (stateless).
 */
public final class RateLimitFields {

    private RateLimitFields() {
    }

    /**
     * The {@code RateLimit-Policy} field value of {@code plan}, e.g.
     * {@code "burst";q=20;w=2, "daily";q=10000;w=86400}. Constant per plan (SPEC §2.2): callers
     * should use {@link Plan#rateLimitPolicyField()}, which computes this once.
     */
    public static String policyField(Plan plan) {
        List<QuotaPolicy> items = new ArrayList<>(plan.size());
        for (Policy p : plan.policies()) {
            items.add(new QuotaPolicy(
                    p.name(),
                    p.quota(),
                    p.unit() == QuotaUnit.CONCURRENT_REQUESTS ? null : p.windowSeconds(),
                    p.unit() == QuotaUnit.REQUESTS ? null : p.unit().wireName(),
                    p.partitionKey() == null
                            ? null
                            : new SfByteSequence(p.partitionKey().getBytes(StandardCharsets.UTF_8))));
        }
        return RateLimitWriter.policies(items);
    }

    /**
     * Appends the {@code RateLimit} field value for {@code states} (plan order), e.g.
     * {@code "burst";r=7;t=2, "daily";r=2310;t=21600}; allocation-free unless a policy has a
     * partition key.
     *
     * @return {@code sb}
     * @throws IllegalArgumentException if a state has a negative {@code r} or {@code t} (a limiter
     *     bug; the writer never emits one, R02)
     */
    public static StringBuilder appendRateLimit(StringBuilder sb, List<PolicyState> states) {
        for (int i = 0; i < states.size(); i++) {
            if (i > 0) {
                sb.append(RateLimitWriter.MEMBER_SEPARATOR);
            }
            PolicyState s = states.get(i);
            String pk = s.policy().partitionKey();
            if (s.policy().unit() == QuotaUnit.CONCURRENT_REQUESTS) {
                RateLimitWriter.appendServiceLimit(sb, new ServiceLimit(s.policy().name(), s.remaining(),
                        s.resetSeconds() == 0 ? null : s.resetSeconds(),
                        pk == null ? null : new SfByteSequence(pk.getBytes(StandardCharsets.UTF_8))));
            } else if (pk == null) {
                RateLimitWriter.appendServiceLimit(sb, s.policy().name(), s.remaining(), s.resetSeconds());
            } else {
                RateLimitWriter.appendServiceLimit(sb, new ServiceLimit(s.policy().name(), s.remaining(),
                        s.resetSeconds(), new SfByteSequence(pk.getBytes(StandardCharsets.UTF_8))));
            }
        }
        return sb;
    }

    /** {@link #appendRateLimit} into a new string. */
    public static String rateLimitField(List<PolicyState> states) {
        return appendRateLimit(new StringBuilder(24 * states.size()), states).toString();
    }
}
