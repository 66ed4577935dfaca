package dev.sluice.wire.dialect;

import dev.sluice.wire.value.WireNumbers;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The "limit plus quota policies" shape of the older IETF drafts and the vendors that copied them:
 * {@code 100, 100;w=60, 10000;w=86400} (an expiring limit, then {@code quota;w=window} items).
 * Holds the parsed numbers and matches the limit to its window.
 *
 * @param limit the first bare number (the limit that applies now), or {@code null}
 * @param policies the {@code {quota, windowSeconds}} pairs, in order
 */
record QuotaPolicies(@Nullable Long limit, List<long[]> policies) {

    static final QuotaPolicies EMPTY = new QuotaPolicies(null, List.of());

    /**
     * The index of the policy that describes {@code limit}: the one whose quota equals it, else the
     * only one; {@code -1} when none does.
     */
    int policyFor(@Nullable Long quota) {
        if (quota != null) {
            for (int i = 0; i < policies.size(); i++) {
                if (policies.get(i)[0] == quota) {
                    return i;
                }
            }
        }
        return policies.size() == 1 ? 0 : -1;
    }

    /**
     * Parses the vendor (non-structured) spelling, where the window parameter may be {@code w} or
     * {@code window} ({@code 100, 100;window=60}); members that are not numbers are skipped.
     */
    static QuotaPolicies parseLoose(@Nullable String value) {
        if (value == null) {
            return EMPTY;
        }
        @Nullable Long limit = null;
        List<long[]> policies = new ArrayList<>(2);
        String[] members = value.split(",");
        for (int m = 0; m < members.length; m++) {
            String[] parts = members[m].split(";", -1);
            long q = WireNumbers.parseCount(parts[0]);
            if (q < 0) {
                continue;
            }
            long w = -1;
            for (int i = 1; i < parts.length; i++) {
                String param = parts[i].strip();
                int eq = param.indexOf('=');
                if (eq > 0) {
                    String key = param.substring(0, eq).strip();
                    if (key.equals("w") || key.equals("window")) {
                        w = WireNumbers.parseCount(param.substring(eq + 1).replace("\"", ""));
                    }
                }
            }
            if (w > 0) {
                policies.add(new long[] {q, w});
                if (m == 0) {
                    limit = q; // a lone "100;w=60" is both the limit and its policy
                }
            } else if (limit == null) {
                limit = q;
            }
        }
        return new QuotaPolicies(limit, policies);
    }
}
