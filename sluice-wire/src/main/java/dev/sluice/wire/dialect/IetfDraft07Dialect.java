package dev.sluice.wire.dialect;

import dev.sluice.wire.sf.Dictionary;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.ListMembers;
import java.util.List;
import java.util.Optional;

/**
 * draft-ietf-httpapi-ratelimit-headers-07: {@code RateLimit} is a Structured Field Dictionary
 * {@code limit=100, remaining=50, reset=30} (reset in delta seconds), and
 * {@code RateLimit-Policy} a List of quota policies {@code 100;w=60, 10000;w=86400} whose window
 * describes the limit (matched by quota, or the only one). Id {@code ietf-draft-07}.
 *
 * <p>Asked after {@link IetfDraft11Dialect}: a draft-11 {@code RateLimit} is a List of Strings,
 * which does not parse as this Dictionary, and this Dictionary is not a List.
 */
public final class IetfDraft07Dialect implements Dialect {

    public static final IetfDraft07Dialect INSTANCE = new IetfDraft07Dialect();

    private IetfDraft07Dialect() {
    }

    @Override
    public String id() {
        return "ietf-draft-07";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        Dictionary d = OldIetfFields.dictionary(in.headers().all("RateLimit"));
        if (d == null || !(d.containsKey("limit") || d.containsKey("remaining") || d.containsKey("reset"))) {
            return Optional.empty();
        }
        // a key sent twice (two lines joined, where RFC 9651 keeps the last) is read cautiously: the
        // first limit, the lowest remaining, the longest reset (SPEC §2.4)
        Long limit = null;
        Long remaining = null;
        Long reset = null;
        for (String member : ListMembers.of(in.headers().all("RateLimit"))) {
            Dictionary one = OldIetfFields.dictionary(List.of(member));
            if (one == null) {
                continue;
            }
            Long l = OldIetfFields.integer(one, "limit");
            Long r = OldIetfFields.integer(one, "remaining");
            Long t = OldIetfFields.integer(one, "reset");
            limit = limit != null ? limit : l;
            remaining = r == null || (remaining != null && remaining <= r) ? remaining : r;
            reset = t == null || (reset != null && reset >= t) ? reset : t;
        }
        PolicySnapshot.Builder p = PolicySnapshot.builder()
                .quota(limit)
                .remaining(remaining)
                .quotaUnit("requests");
        if (reset != null) {
            ResetUnit.DELTA_SECONDS.apply(Long.toString(reset), in.responseTime(), p); // an epoch is read as one
        }
        DialectReading.Builder r = DialectReading.builder();
        OldIetfFields.addPolicies(r, p, limit, OldIetfFields.quotaPolicies(in.headers().all("RateLimit-Policy")));
        return Optional.of(r.build());
    }
}
