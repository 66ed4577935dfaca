package dev.sluice.wire.dialect;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link Dialect} found in a response; the registry completes it into a
 * {@link dev.sluice.wire.snapshot.RateLimitSnapshot}.
 *
 * @param policies the limits reported, most relevant first (the registry keeps this order)
 * @param retryAfter a dialect-specific wait (Discord's body {@code retry_after}, Google
 *     {@code RetryInfo}); the registry weighs it with {@code Retry-After} and the other hints (the
 *     longest wins, keeping a finer value that a whole-second header merely rounds up);
 *     {@code null} when none
 * @param outcome the dialect's own classification when it knows better than the status code
 *     (OpenAI {@code insufficient_quota}, Google per-day quota, a rate limit sent as 403); applied
 *     only to error statuses (≥ 400); {@code null} to let the registry decide
 * @param violatedPolicy the policy the dialect says was violated, or {@code null}
 * @param attributes dialect-specific facts ({@code scope}, {@code bucket}, {@code resource}, ...)
 */
public record DialectReading(
        List<PolicySnapshot> policies,
        @Nullable Duration retryAfter,
        @Nullable Outcome outcome,
        @Nullable String violatedPolicy,
        Map<String, String> attributes) {

    public DialectReading {
        policies = policies == null ? List.of() : List.copyOf(policies);
        attributes = attributes == null || attributes.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        if (retryAfter != null && retryAfter.isNegative()) {
            retryAfter = null;
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Collects a {@link DialectReading}; not thread-safe. */
    public static final class Builder {
        private final List<PolicySnapshot> policies = new ArrayList<>(2);
        private @Nullable Duration retryAfter;
        private @Nullable Outcome outcome;
        private @Nullable String violatedPolicy;
        private final Map<String, String> attributes = new LinkedHashMap<>();

        private Builder() {
        }

        public Builder policy(PolicySnapshot policy) {
            if (policy != null) {
                policies.add(policy);
            }
            return this;
        }

        public Builder retryAfter(@Nullable Duration retryAfter) {
            this.retryAfter = retryAfter;
            return this;
        }

        public Builder outcome(@Nullable Outcome outcome) {
            this.outcome = outcome;
            return this;
        }

        public Builder violatedPolicy(@Nullable String violatedPolicy) {
            this.violatedPolicy = violatedPolicy;
            return this;
        }

        /** Adds an attribute; {@code null} keys or values are ignored; the first value of a key wins. */
        public Builder attribute(String key, @Nullable String value) {
            if (key != null && value != null) {
                attributes.putIfAbsent(key, value);
            }
            return this;
        }

        public List<PolicySnapshot> policies() {
            return policies;
        }

        public DialectReading build() {
            return new DialectReading(policies, retryAfter, outcome, violatedPolicy, attributes);
        }
    }
}
