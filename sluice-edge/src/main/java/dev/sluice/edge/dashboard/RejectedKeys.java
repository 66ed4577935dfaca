package dev.sluice.edge.dashboard;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The keys the edge refused most often, in bounded memory: the Space-Saving summary (Metwally, Agrawal
 * and El Abbadi, "Efficient Computation of Frequent and Top-k Elements in Data Streams", ICDT 2005).
 *
 * <p>At most {@code capacity} keys are monitored. A rejection of a monitored key adds one to its count; a
 * rejection of another key, when all slots are taken, replaces the key with the smallest count {@code m}
 * and starts the newcomer at {@code m + 1} with an error bound of {@code m}. So a count is never below the
 * key's true number of rejections and at most {@code error} above it, and every key refused more than
 * {@code N / capacity} times out of {@code N} is monitored. With fewer distinct keys than slots every count
 * is exact. A flood of rejections spread over many keys costs {@code capacity} entries, never one per key.
 *
 * <p>Keys are their ids ({@link dev.sluice.edge.decision.KeyIds}), never the keys themselves. Counts run
 * since the edge started. Thread-safe: one lock, held for a map update (and, when a key is replaced, a scan
 * of the {@code capacity} entries); only refused requests take it.
 */
public final class RejectedKeys {

    private final int capacity;
    private final Map<String, Entry> monitored;

    /**
     * @param capacity the keys monitored at once, 1..10,000
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public RejectedKeys(int capacity) {
        if (capacity < 1 || capacity > 10_000) {
            throw new IllegalArgumentException("capacity: 1..10000, was " + capacity);
        }
        this.capacity = capacity;
        this.monitored = new HashMap<>(capacity * 2);
    }

    /** The keys monitored at once. */
    public int capacity() {
        return capacity;
    }

    /**
     * Counts one rejection of {@code keyId}.
     *
     * @param keyId the key's id
     * @param plan the key's plan
     * @param status the HTTP status the key got (429, 503)
     */
    public synchronized void record(String keyId, String plan, int status) {
        Objects.requireNonNull(keyId, "keyId");
        Objects.requireNonNull(plan, "plan");
        Entry e = monitored.get(keyId);
        if (e == null) {
            long floor = 0;
            if (monitored.size() == capacity) {
                Entry min = null;
                for (Entry x : monitored.values()) {
                    if (min == null || x.count < min.count) {
                        min = x;
                    }
                }
                monitored.remove(min.keyId);
                floor = min.count;
            }
            e = new Entry(keyId, floor);
            monitored.put(keyId, e);
        }
        e.count++;
        e.plan = plan;
        if (status == 429) {
            e.tooMany++;
        } else {
            e.unavailable++;
        }
    }

    /**
     * The {@code n} keys with the highest counts, highest first (ties by key id).
     *
     * @param n how many, ≥ 0
     */
    public synchronized List<Top> top(int n) {
        List<Top> all = new ArrayList<>(monitored.size());
        for (Entry e : monitored.values()) {
            all.add(new Top(e.keyId, e.plan, e.count, e.error, e.tooMany, e.unavailable));
        }
        all.sort(Comparator.comparingLong(Top::rejections).reversed().thenComparing(Top::keyId));
        return List.copyOf(all.subList(0, Math.min(n, all.size())));
    }

    /**
     * One monitored key.
     *
     * @param keyId the key's id
     * @param plan the plan of its last rejection
     * @param rejections its estimated rejections: at least the true count, at most {@code error} above it
     * @param error how much {@code rejections} may overstate (0: exact)
     * @param status429 the 429s counted while it was monitored
     * @param status503 the 503s (shed or store unavailable) counted while it was monitored
     */
    public record Top(String keyId, String plan, long rejections, long error, long status429, long status503) {
    }

    private static final class Entry {
        final String keyId;
        final long error;
        long count;
        String plan;
        long tooMany;
        long unavailable;

        Entry(String keyId, long floor) {
            this.keyId = keyId;
            this.error = floor;
            this.count = floor;
        }
    }
}
