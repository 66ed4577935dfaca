package dev.sluice.edge.keys;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * An API key as a key store holds it: never the key itself, only its hash, its id and its binding.
 *
 * @param keyHash the key's digest, 64 lower-case hex digits ({@link KeyHashing}); also the key the limiter
 *     keeps the key's state under, so the clear key reaches neither the database nor Redis
 * @param keyId the key's id for logs, events and the admin API ({@link dev.sluice.edge.decision.KeyIds})
 * @param plan the name of the key's plan, one of the configuration's {@code plans}
 * @param renewalDay the day of the month its monthly quotas renew, 1..31, or 0 for each policy's own
 * @param quotaOverrides the key's own {@code q} per policy name (a policy of its plan), in name order
 * @param warningDestination the delivery destination (by name) of this key's {@code quota.warning} webhooks, when it
 *     has one of its own rather than its plan's
 */
public record StoredKey(String keyHash, String keyId, String plan, int renewalDay, Map<String, Long> quotaOverrides,
        Optional<String> warningDestination) {

    public StoredKey {
        Objects.requireNonNull(keyHash, "keyHash");
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(plan, "plan");
        quotaOverrides = java.util.Collections.unmodifiableMap(new TreeMap<>(quotaOverrides));
        Objects.requireNonNull(warningDestination, "warningDestination");
        if (renewalDay < 0 || renewalDay > 31) {
            throw new IllegalArgumentException("renewal-day: must be in 0..31, was " + renewalDay);
        }
        for (Map.Entry<String, Long> e : quotaOverrides.entrySet()) {
            if (e.getValue() == null || e.getValue() < 1) {
                throw new IllegalArgumentException("overrides." + e.getKey() + ".q: must be ≥ 1, was " + e.getValue());
            }
        }
    }
}
