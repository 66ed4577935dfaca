package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.value.WireNumbers;
import java.util.Optional;

/**
 * Salesforce: {@code Sforce-Limit-Info: api-usage=18/5000; per-app-api-usage=17/250(appName=x)},
 * used/limit pairs of the org's rolling 24-hour API request allocation (and a connected app's
 * share). One policy per pair, named by its key, a quota policy (a 24-hour allocation), with
 * {@code appName} as an attribute. No reset is given. Id {@code salesforce}.
 */
public final class SalesforceDialect implements Dialect {

    public static final SalesforceDialect INSTANCE = new SalesforceDialect();

    private SalesforceDialect() {
    }

    @Override
    public String id() {
        return "salesforce";
    }

    @Override
    public Optional<DialectReading> read(DialectInput in) {
        String value = in.headers().combined("sforce-limit-info").orElse(null);
        if (value == null) {
            return Optional.empty();
        }
        DialectReading.Builder r = DialectReading.builder();
        for (String part : value.split("[;,]")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = part.substring(0, eq).strip();
            String rest = part.substring(eq + 1).strip();
            String app = null;
            int paren = rest.indexOf('(');
            if (paren >= 0) {
                int close = rest.indexOf(')', paren);
                String inner = rest.substring(paren + 1, close > paren ? close : rest.length());
                if (inner.startsWith("appName=")) {
                    app = inner.substring("appName=".length());
                }
                rest = rest.substring(0, paren);
            }
            int slash = rest.indexOf('/');
            if (slash <= 0) {
                continue;
            }
            long used = WireNumbers.parseCount(rest.substring(0, slash));
            long limit = WireNumbers.parseCount(rest.substring(slash + 1));
            if (used < 0 || limit < 0) {
                continue;
            }
            r.policy(PolicySnapshot.builder()
                    .name(key)
                    .quota(limit)
                    .used(used)
                    .quotaUnit("requests")
                    .kind(PolicySnapshot.PolicyKind.QUOTA)
                    .attribute("appName", app)
                    .build());
        }
        return Optional.of(r.build());
    }
}
