package dev.sluice.wire.dialect;

import dev.sluice.wire.sf.BareItem;
import dev.sluice.wire.sf.Dictionary;
import dev.sluice.wire.sf.Item;
import dev.sluice.wire.sf.Member;
import dev.sluice.wire.sf.SfInteger;
import dev.sluice.wire.sf.StructuredFieldParseException;
import dev.sluice.wire.sf.StructuredFields;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Structured-field readings shared by the pre-draft-08 IETF dialects: Integer items, the
 * {@code quota-policy} list ({@code 100, 100;w=60, 10000;w=86400}) and Dictionaries. A field that
 * does not parse is ignored whole (RFC 9651 §4.2).
 */
final class OldIetfFields {

    private OldIetfFields() {
    }

    /** The quota-policy list of {@code lines}: the leading bare Integer and the {@code q;w=} items. */
    static QuotaPolicies quotaPolicies(List<String> lines) {
        if (lines.isEmpty()) {
            return QuotaPolicies.EMPTY;
        }
        List<Member> members;
        try {
            members = StructuredFields.parseList(lines);
        } catch (StructuredFieldParseException e) {
            return QuotaPolicies.EMPTY;
        }
        Long limit = null;
        List<long[]> policies = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            if (!(members.get(i) instanceof Item item) || !(item.bareItem() instanceof SfInteger q) || q.value() < 0) {
                continue;
            }
            BareItem w = item.parameter("w");
            if (w instanceof SfInteger window && window.value() > 0) {
                policies.add(new long[] {q.value(), window.value()});
                if (i == 0) {
                    limit = q.value();
                }
            } else if (limit == null) {
                limit = q.value();
            }
        }
        return new QuotaPolicies(limit, policies);
    }

    /** A Dictionary field, or {@code null} when absent or unparseable. */
    static @Nullable Dictionary dictionary(List<String> lines) {
        if (lines.isEmpty()) {
            return null;
        }
        try {
            return StructuredFields.parseDictionary(lines);
        } catch (StructuredFieldParseException e) {
            return null;
        }
    }

    /** The non-negative Integer member {@code key} of {@code d}, or {@code null}. */
    static @Nullable Long integer(Dictionary d, String key) {
        Member m = d.get(key);
        return m instanceof Item item && item.bareItem() instanceof SfInteger i && i.value() >= 0 ? i.value() : null;
    }

    /**
     * Builds the policies: the one the limit describes first (its window matched from the list),
     * then the remaining quota policies of {@code list}.
     */
    static void addPolicies(DialectReading.Builder r, PolicySnapshot.Builder primary, @Nullable Long limit,
            QuotaPolicies list) {
        int own = list.policyFor(limit);
        if (own >= 0) {
            primary.windowSeconds(list.policies().get(own)[1]);
            if (limit == null) {
                primary.quota(list.policies().get(own)[0]);
            }
        }
        r.policy(primary.build());
        for (int i = 0; i < list.policies().size(); i++) {
            if (i != own) {
                long[] qw = list.policies().get(i);
                r.policy(PolicySnapshot.builder().quota(qw[0]).windowSeconds(qw[1]).quotaUnit("requests").build());
            }
        }
    }
}
