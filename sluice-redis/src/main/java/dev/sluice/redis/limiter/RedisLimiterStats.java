package dev.sluice.redis.limiter;

/**
 * Counters of a {@link RedisLimiterStore} since it was made (for metrics: SPEC §3.13).
 *
 * @param redisDecisions decisions Redis made
 * @param denyCacheHits denials answered from the local deny cache, without a round trip
 * @param fallbackDecisions decisions made by the local fallback at {@code q/N} (Redis down or slow)
 * @param unavailableDecisions {@link dev.sluice.limiter.Unavailable} answers (fail-closed, or a cost that
 *     does not fit the local share)
 * @param timeouts calls Redis did not answer within the decision timeout
 * @param errors calls that failed otherwise (refused connection, {@code BUSY}, a script error)
 * @param lateRefunds admissions Redis made after the caller had been answered locally, refunded on Redis
 * @param droppedRefunds refunds Redis did not confirm in time (not retried, to never refund twice)
 * @param droppedReleases concurrency releases Redis did not confirm, even sent again: the slot comes back
 *     when its lease ({@code concurrencyLease}) expires
 * @param scriptLoads times the script was loaded: once when Redis is first up, and after each {@code NOSCRIPT}
 */
public record RedisLimiterStats(
        long redisDecisions,
        long denyCacheHits,
        long fallbackDecisions,
        long unavailableDecisions,
        long timeouts,
        long errors,
        long lateRefunds,
        long droppedRefunds,
        long droppedReleases,
        long scriptLoads) {}
