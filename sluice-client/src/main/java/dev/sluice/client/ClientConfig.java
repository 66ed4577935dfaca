package dev.sluice.client;

import java.util.Objects;

/**
 * Everything a Sluice client decides by: retries, the retry budget, the adaptive throttle, the
 * pacer and the admission queue. Immutable; {@link #defaults()} gives SPEC §4–§5 defaults.
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
