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

    /** All shed calls, whatever the reason. */
    public long shedTotal() {
        return shed.values().stream().mapToLong(Long::longValue).sum();
    }
}
