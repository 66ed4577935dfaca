package dev.sluice.client.internal.retry;

import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Total attempts per Idempotency-Key across the caller's repeated calls (SPEC §4.4), so that a
 * caller who retries a failing call with the same key adds nothing beyond the cap (default 5).
 *
 * <p>Bounded memory: at most {@code maxKeys} keys, least recently used dropped first, and a key
 * unused for {@code ttl} (default 24 h, like the edge's idempotency records, SPEC §3.11) is
 * forgotten. Not thread-safe; the owner locks.
 */
public final class AttemptLedger {

    /** One key's count, updated in place (one object per key, not one per attempt). */
    private static final class Use {
        int attempts;
        long lastNanos;
    }

    private final int cap;
    private final int maxKeys;
    private final long ttlNanos;
    private final LinkedHashMap<String, Use> uses;

    public AttemptLedger(int cap, int maxKeys, Duration ttl) {
        this.cap = cap;
        this.maxKeys = maxKeys;
        this.ttlNanos = ttl.toNanos();
        this.uses = new LinkedHashMap<>(64, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Use> eldest) {
                return size() > AttemptLedger.this.maxKeys;
            }
        };
    }

    /** Attempts already made with {@code key} (0 for an unknown or expired key). */
    public int used(String key, long nowNanos) {
        Use u = uses.get(key);
        if (u == null) {
            return 0;
        }
        if (nowNanos - u.lastNanos >= ttlNanos) {
            uses.remove(key);
            return 0;
        }
        return u.attempts;
    }

    /** Attempts {@code key} may still make. */
    public int left(String key, long nowNanos) {
        return Math.max(0, cap - used(key, nowNanos));
    }

    /** Counts one attempt sent with {@code key}. */
    public void record(String key, long nowNanos) {
        Use u = uses.get(key); // access order: now the most recent
        if (u == null) {
            u = new Use();
            uses.put(key, u);
        } else if (nowNanos - u.lastNanos >= ttlNanos) {
            u.attempts = 0; // expired: counts afresh
        }
        u.attempts++;
        u.lastNanos = nowNanos;
        if (uses.size() > maxKeys / 2) {
            purgeExpired(nowNanos);
        }
    }

    private void purgeExpired(long nowNanos) {
        // access order: the eldest are first; stop at the first live one
        for (Iterator<Use> it = uses.values().iterator(); it.hasNext(); ) {
            if (nowNanos - it.next().lastNanos >= ttlNanos) {
                it.remove();
            } else {
                break;
            }
        }
    }

    public int cap() {
        return cap;
    }
}
