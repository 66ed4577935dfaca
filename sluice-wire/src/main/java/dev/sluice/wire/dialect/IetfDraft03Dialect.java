package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.Optional;

/**
 * draft-ietf-httpapi-ratelimit-headers-01 to -06 (and draft-polli, express-rate-limit's "draft-6"
 * mode): three fields, {@code RateLimit-Limit}, {@code RateLimit-Remaining},
 * {@code RateLimit-Reset} (delta seconds). Up to -03 {@code RateLimit-Limit} is a List, an
 * expiring limit followed by quota policies ({@code 10, 10;w=1, 50;w=60}); from -04 the policies
 * move to {@code RateLimit-Policy: 100;w=60}. The limit's window is the quota policy of the same
 * quota (or the only one); other quota policies become further policies. Id {@code ietf-draft-03}.
 *
 * <p>The reset is delta seconds as the drafts define it, but a value that can only be a plausible
 * epoch (10<sup>9</sup> or more) is read as one: some servers reuse these names with epoch resets
 * ({@link ResetUnit}). Sent twice, the lowest remaining and the longest reset count (SPEC §2.4).
 * Field names are matched case-insensitively (the drafts' own examples mix {@code RateLimit-} and
 * {@code Ratelimit-}).
 */
public final class IetfDraft03Dialect implements Dialect {

    public static final IetfDraft03Dialect INSTANCE = new IetfDraft03Dialect();

    private IetfDraft03Dialect() {
    }

    @Override
    public String id() {
        return "ietf-draft-03";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        boolean fields = in.has("RateLimit-Limit") || in.has("RateLimit-Remaining") || in.has("RateLimit-Reset");
        QuotaPolicies policyField = OldIetfFields.quotaPolicies(in.headers().all("RateLimit-Policy"));
        if (!fields && policyField.policies().isEmpty()) {
            return Optional.empty();
        }
        QuotaPolicies limitField = OldIetfFields.quotaPolicies(in.headers().all("RateLimit-Limit"));
        Long limit = limitField.limit();
        QuotaPolicies policies = limitField.policies().isEmpty() ? policyField : limitField;
        Long remaining = in.count("RateLimit-Remaining"); // an SF Integer, or loosely written
        PolicySnapshot.Builder p = PolicySnapshot.builder()
                .quota(limit)
                .remaining(remaining)
                .quotaUnit("requests");
        ResetUnit.DELTA_SECONDS.applyLongest(in.members("RateLimit-Reset"), in.responseTime(), p);
        DialectReading.Builder r = DialectReading.builder();
        OldIetfFields.addPolicies(r, p, limit, policies);
        return Optional.of(r.build());
    }
}
