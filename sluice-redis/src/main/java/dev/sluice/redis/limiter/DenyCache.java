package dev.sluice.redis.limiter;

import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.time.TimeSource;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The hot-key deny cache (SPEC §3.14): a key Redis just refused is answered locally, without a round
 * trip, while it would still be refused.
 *
 * <p>An entry keeps the script's raw per-policy values and the server time they were read at. A later
 * request re-evaluates them locally at the estimated server time (the read time plus the local time
 * elapsed since), with its own cost: bursts drain, quota windows roll over. If some policy still
 * refuses, the answer is that {@link Denied}, with honest {@code r}, {@code t} and Retry-After; if every
 * policy would admit, the request goes to Redis. This can only err on the strict side when other
 * replicas share the key (they only add to it), except for a refund made elsewhere, which is why an
 * entry lives at most {@code maxAge} and never past the denial's own wait. A denial by concurrency
 * policies alone is not cached: a slot comes back whenever a request ends, on any replica. Plans are compared, so a
 * reconfigured plan is never answered from an old entry.
 *
 * <p>Bounded: at {@code maxEntries} expired entries are purged, and if that frees nothing the cache is
 * cleared (it is only a cache). Thread-safe.
 */
final class DenyCache {

    private record Entry(Plan plan, long[] values, long serverMicros, long localNanos, long expiresAtNanos) {}

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
    private final TimeSource local;
    private final long maxAgeNanos;
    private final int maxEntries;

    DenyCache(TimeSource local, long maxAgeNanos, int maxEntries) {
        this.local = local;
        this.maxAgeNanos = maxAgeNanos;
        this.maxEntries = maxEntries;
    }

    /** The local denial of this request, or {@code null} when it must go to Redis. */
    Denied answer(String key, Plan plan, Costs costs) {
        if (entries.isEmpty()) {
            return null;
        }
        Entry e = entries.get(key);
        if (e == null) {
            return null;
        }
        long now = local.nanoTime();
        if (now - e.expiresAtNanos >= 0 || (e.plan != plan && !e.plan.equals(plan))) {
            entries.remove(key, e);
            return null;
        }
        long serverNow = e.serverMicros + Math.max(0, now - e.localNanos) / 1_000;
        long[] values = ScriptStates.aged(plan, e.values, e.serverMicros, serverNow);
        Denied d = ScriptStates.deniedOrNull(plan, costs, values, ScriptStates.instantOfMicros(serverNow));
        return d == null || onlyConcurrency(d) ? null : d;
    }

    /**
     * A denial by concurrency policies alone is never answered from the cache: a slot frees the moment
     * a request ends on any replica, which no local ageing can foresee.
     */
    private static boolean onlyConcurrency(Denied d) {
        for (var p : d.violated()) {
            if (!(p instanceof dev.sluice.limiter.ConcurrencyPolicy)) {
                return false;
            }
        }
        return true;
    }

    /** Remembers Redis's denial of {@code key}, read at {@code serverMicros}. */
    void remember(String key, Plan plan, Denied denied, long[] values, long serverMicros) {
        if (onlyConcurrency(denied)) {
            return;
        }
        long now = local.nanoTime();
        long life = Math.min(maxAgeNanos, denied.exactWait().toNanos());
        if (entries.size() >= maxEntries) {
            entries.values().removeIf(x -> now - x.expiresAtNanos >= 0);
            if (entries.size() >= maxEntries) {
                entries.clear();
            }
        }
        entries.put(key, new Entry(plan, values, serverMicros, now, now + life));
    }

    /** Redis admitted {@code key}: whatever was remembered is stale. */
    void forget(String key) {
        if (!entries.isEmpty()) {
            entries.remove(key);
        }
    }

    int size() {
        return entries.size();
    }
}
