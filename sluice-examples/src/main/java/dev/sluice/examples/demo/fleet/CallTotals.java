package dev.sluice.examples.demo.fleet;

import java.util.EnumMap;
import java.util.Map;

/**
 * How the fleet's calls ended, over a whole run. Immutable snapshot.
 *
 * @param byKind calls per {@link CallResult.Kind} (every kind present, zeros included)
 */
public record CallTotals(Map<CallResult.Kind, Long> byKind) {

    public CallTotals {
        EnumMap<CallResult.Kind, Long> all = new EnumMap<>(CallResult.Kind.class);
        for (CallResult.Kind k : CallResult.Kind.values()) {
            all.put(k, byKind.getOrDefault(k, 0L));
        }
        byKind = Map.copyOf(all);
    }

    /** Calls of {@code kind}. */
    public long get(CallResult.Kind kind) {
        return byKind.get(kind);
    }

    /** All calls. */
    public long calls() {
        return byKind.values().stream().mapToLong(Long::longValue).sum();
    }
}
