package dev.sluice.edge.softlimit;

import java.time.Instant;
import java.util.Objects;

/**
 * The {@code quota.warning} event (SPEC §3.8): a key crossed the soft limit (default 80 %) of a
 * quota policy. Emitted once per key, policy and window.
 *
 * @param keyId the id of the key that crossed it ({@link dev.sluice.edge.decision.KeyIds}: stable, one per
 *     key, not reversible); the raw key is never part of the event
 * @param plan the key's plan name
 * @param policy the quota policy's name
 * @param used units spent in the window, after the request that crossed
 * @param quota the policy's {@code q}
 * @param windowResetAt when the window ends and the quota is whole again (also the window's identity)
 * @param at when the crossing request was decided
 */
public record QuotaWarning(String keyId, String plan, String policy, long used, long quota, Instant windowResetAt,
        Instant at) {

    /** The event's type name. */
    public static final String TYPE = "quota.warning";

    public QuotaWarning {
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(plan, "plan");
        Objects.requireNonNull(policy, "policy");
        Objects.requireNonNull(windowResetAt, "windowResetAt");
        Objects.requireNonNull(at, "at");
    }
}
