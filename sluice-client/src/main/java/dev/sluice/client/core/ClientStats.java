package dev.sluice.client.core;

import dev.sluice.client.FallbackReason;
import dev.sluice.client.ShedReason;
import java.util.Map;

/**
 * Counts since the client was created (SPEC §4.9, §5.5). A snapshot; immutable.
 *
 * @param calls logical calls opened (including those rejected at open)
 * @param attempts requests sent (first attempts and retries, and the transport's own re-sends)
 * @param accepts answers that were not 429/503/overload
 * @param retries retries granted
 * @param localDrops calls dropped by the adaptive throttle
 * @param budgetExhaustions retries refused by the retry budget or a key's attempt cap
 * @param quotaErrors quota-exhausted answers
 * @param successes calls that returned an answer
 * @param errors calls that ended with an error (shed and dropped calls included)
 * @param shed shed calls by reason
 * @param fallbacks fallback answers by reason
 * @param transportResends requests the transport may have re-sent underneath an attempt (the JDK
 *     HttpClient's own re-send of a GET/HEAD whose connection closed before any response byte);
 *     included in {@code attempts}
 * @param pacedRetries retries of a 429 {@code rate_limited} held to a known rate by the pacer
 *     (SPEC §4.2, §4.6): included in {@code retries}, not charged to the retry budget
 */
public record ClientStats(
        long calls,
        long attempts,
        long accepts,
        long retries,
        long localDrops,
        long budgetExhaustions,
        long quotaErrors,
        long successes,
        long errors,
        Map<ShedReason, Long> shed,
        Map<FallbackReason, Long> fallbacks,
        long transportResends,
        long pacedRetries) {

    public ClientStats {
        shed = Map.copyOf(shed);
        fallbacks = Map.copyOf(fallbacks);
    }

    /**
     * What happened, in one line, leaving out what did not: {@code "30 calls: 30 succeeded; 40
     * attempts, 10 retries (10 paced), 0 accepted ..."} shows only non-zero counts and reasons.
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("ClientStats[").append(calls).append(" calls: ")
                .append(successes).append(" succeeded, ").append(errors).append(" failed; ")
                .append(attempts).append(" attempts, ").append(accepts).append(" accepted");
        part(b, retries, "retries");
        if (pacedRetries > 0) {
            b.append(" (").append(pacedRetries).append(" paced)");
        }
        part(b, transportResends, "re-sent by the transport");
        part(b, localDrops, "dropped locally");
        part(b, budgetExhaustions, "refused by a budget");
        part(b, quotaErrors, "quota errors");
        long shedCalls = shedTotal();
        if (shedCalls > 0) {
            b.append(", ").append(shedCalls).append(" shed ").append(nonZero(shed));
        }
        long fallbackCalls = fallbacks.values().stream().mapToLong(Long::longValue).sum();
        if (fallbackCalls > 0) {
            b.append(", ").append(fallbackCalls).append(" fallbacks ").append(nonZero(fallbacks));
        }
        return b.append(']').toString();
    }

    private static void part(StringBuilder b, long n, String what) {
        if (n > 0) {
            b.append(", ").append(n).append(' ').append(what);
        }
    }

    private static <K extends Enum<K>> Map<K, Long> nonZero(Map<K, Long> counts) {
        Map<K, Long> out = new java.util.TreeMap<>();
        counts.forEach((k, v) -> {
            if (v > 0) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** All shed calls, whatever the reason. */
    public long shedTotal() {
        return shed.values().stream().mapToLong(Long::longValue).sum();
    }
}
