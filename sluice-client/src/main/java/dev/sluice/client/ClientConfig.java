package dev.sluice.client;

import java.util.Objects;

/**
 * Everything a Sluice client decides by: retries, the retry budget, the adaptive throttle, the
 * pacer and the admission queue. Immutable; {@link #defaults()} gives SPEC §4–§5 defaults.
 *
 * <table>
 *   <caption>Defaults (each part's own table has every setting)</caption>
 *   <tr><th>part</th><th>default</th><th>rule</th></tr>
 *   <tr><td>{@link RetryConfig}</td><td>3 attempts; Retry-After + {@code U(0, min(20 s, max(1 s, ra)))};
 *       full jitter {@code U(0, min(20 s, 0.5 s·2^n))}; max wait 60 s; 5 attempts per Idempotency-Key</td>
 *       <td>§4.2–§4.4</td></tr>
 *   <tr><td>{@link RetryBudgetConfig}</td><td>retries at most 10 % of calls <em>or 10 retries, whichever is
 *       more</em>, over a sliding minute. The floor lets a client with little traffic retry at all (Finagle's
 *       {@code minRetriesPerSec}); on a short or small run it dominates, so retries may exceed 10 % of calls.
 *       {@link RetryBudgetConfig#strict()} has no floor</td><td>§4.2, §8</td></tr>
 *   <tr><td>{@link ThrottleConfig}</td><td>K = 2 over 2 minutes; drops new calls only</td><td>§4.5</td></tr>
 *   <tr><td>{@link PacerConfig}</td><td>follow the RateLimit headers at 90 % of the rate and of the burst</td>
 *       <td>§4.6</td></tr>
 *   <tr><td>{@link AdmissionConfig}</td><td>100 waiting, 64 in flight</td><td>§5</td></tr>
 * </table>
 */
public record ClientConfig(
        RetryConfig retry,
        RetryBudgetConfig budget,
        ThrottleConfig throttle,
        PacerConfig pacer,
        AdmissionConfig admission) {

    public ClientConfig {
        Objects.requireNonNull(retry, "retry");
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(throttle, "throttle");
        Objects.requireNonNull(pacer, "pacer");
        Objects.requireNonNull(admission, "admission");
    }

    public static ClientConfig defaults() {
        return new ClientConfig(RetryConfig.defaults(), RetryBudgetConfig.defaults(),
                ThrottleConfig.defaults(), PacerConfig.defaults(), AdmissionConfig.defaults());
    }

    public ClientConfig withRetry(RetryConfig v) { return new ClientConfig(v, budget, throttle, pacer, admission); }
    public ClientConfig withBudget(RetryBudgetConfig v) { return new ClientConfig(retry, v, throttle, pacer, admission); }
    public ClientConfig withThrottle(ThrottleConfig v) { return new ClientConfig(retry, budget, v, pacer, admission); }
    public ClientConfig withPacer(PacerConfig v) { return new ClientConfig(retry, budget, throttle, v, admission); }
    public ClientConfig withAdmission(AdmissionConfig v) { return new ClientConfig(retry, budget, throttle, pacer, v); }
}
