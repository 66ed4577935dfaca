package dev.sluice.limiter.config;

import dev.sluice.limiter.Plan;
import java.util.Objects;

/**
 * One API key's entry in the configuration: the plan it is on, with its monthly quota windows moved
 * to the key's renewal day.
 *
 * @param key the API key (the bearer credential)
 * @param plan the key's plan, already {@linkplain Plan#withAnchorDay(int) anchored} on
 *     {@code renewalDay} (its {@code RateLimit-Policy} line is the plan's)
 * @param renewalDay the day of the month the key's monthly quotas renew, 1..31, or 0 when the key
 *     keeps each policy's own {@code anchor-day}
 */
public record KeyBinding(String key, Plan plan, int renewalDay) {

    public KeyBinding {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        if (renewalDay < 0 || renewalDay > 31) {
            throw new IllegalArgumentException("renewal-day: must be in 1..31, was " + renewalDay);
        }
    }
}
