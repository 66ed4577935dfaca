package dev.sluice.redis.client;

/**
 * Counters of one shared store since it was made (for metrics: SPEC §4.9).
 *
 * @param redisCalls script calls sent to Redis
 * @param localAnswers operations answered by the local fallback (Redis down, slow or failing)
 * @param unsentWrites updates (clamp, pause, a counted request) applied locally only, because Redis
 *     was marked down
 * @param timeouts calls Redis did not answer within the decision timeout
 * @param errors calls that failed otherwise (refused connection, {@code BUSY}, a script error)
 * @param fallbackPeriods times the store went from Redis to the local fallback
 * @param scriptLoads times the script was loaded: once when Redis is first up, and after each {@code NOSCRIPT}
 */
public record SharedLimitsStats(
        long redisCalls,
        long localAnswers,
        long unsentWrites,
        long timeouts,
        long errors,
        long fallbackPeriods,
        long scriptLoads) {}
