package dev.sluice.wire.snapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one response says about the caller's limits, in one shape whatever dialect the server
 * spoke (SPEC §2.6): the client classifies and paces from this, {@code sluice explain} prints it.
 *
 * @param status the HTTP status code
 * @param outcome what the response means: ok, rate_limited, quota_exhausted, overloaded, ...
 * @param dialect the id of the dialect that matched ({@code "ietf-draft-11"}, {@code "github"},
 *     ...), or {@code null} when the response carried no limit information Sluice recognises
 * @param retryAfter how long the server asked the caller to wait, from {@code Retry-After},
 *     {@code retry-after-ms}, a vendor header or a body; never negative; {@code null} when absent or
 *     malformed (SPEC §2.4: the caller falls back to its own jittered backoff)
 * @param cached true when the response came from a cache ({@code Age} present): its pacing fields
 *     must not be used (SPEC §2.5)
 * @param policies the limits reported, in the order the response listed them; may be empty
 * @param violatedPolicy the policy that denied (problem {@code limit}, or the dialect's own
 *     marker), or {@code null}
 * @param quotaResetAt when a spent quota comes back, if the response says; {@code null} otherwise
 * @param attributes dialect-specific facts worth keeping ({@code scope}, {@code bucket},
 *     {@code resource}, {@code global}); never {@code null}
 * @param violatedPolicies every policy named as violated (problem {@code limit} and
 *     {@code violated-policies}, the dialect's marker), in order; when none is named but
 *     {@code violatedPolicy} is set, that one; never {@code null}
 */
public record RateLimitSnapshot(
        int status,
        Outcome outcome,
        String dialect,
        Duration retryAfter,
        boolean cached,
        List<PolicySnapshot> policies,
        String violatedPolicy,
        Instant quotaResetAt,
        Map<String, String> attributes,
        List<String> violatedPolicies) {

    public RateLimitSnapshot {
        Objects.requireNonNull(outcome, "outcome");
        policies = policies == null ? List.of() : List.copyOf(policies);
        attributes = attributes == null || attributes.isEmpty()
                ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        if (retryAfter != null && retryAfter.isNegative()) {
            retryAfter = Duration.ZERO;
        }
        violatedPolicies = violatedPolicies == null ? List.of() : List.copyOf(violatedPolicies);
        if (violatedPolicies.isEmpty() && violatedPolicy != null) {
            violatedPolicies = List.of(violatedPolicy);
        }
    }

    /** The original nine-component shape; {@code violatedPolicies} follows {@code violatedPolicy}. */
    public RateLimitSnapshot(int status, Outcome outcome, String dialect, Duration retryAfter, boolean cached,
            List<PolicySnapshot> policies, String violatedPolicy, Instant quotaResetAt,
            Map<String, String> attributes) {
        this(status, outcome, dialect, retryAfter, cached, policies, violatedPolicy, quotaResetAt, attributes,
                List.of());
    }

    /** {@link #retryAfter()} in milliseconds, or {@code null} (the {@code retry_after_ms} of explain). */
    public Long retryAfterMillis() {
        return retryAfter == null ? null : retryAfter.toMillis();
    }

    /**
     * False when the response came from a cache: then its policies describe someone else's (or an
     * old) state and must not drive pacing (SPEC §2.5).
     */
    public boolean usableForPacing() {
        return !cached;
    }

    /** The policy named {@code name} (exact match), if reported. */
    public Optional<PolicySnapshot> policy(String name) {
        for (PolicySnapshot p : policies) {
            if (Objects.equals(p.name(), name)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * The most restrictive reported policy, which a pacer obeys when several are reported (R06):
     * among exhausted policies ({@code remaining == 0}) the one with the longest wait; otherwise the
     * one with the least allowance per second until its reset ({@code remaining / resetIn});
     * otherwise the one with the least remaining. Empty when no policy reports {@code remaining}.
     */
    public Optional<PolicySnapshot> mostRestrictive() {
        Optional<PolicySnapshot> exhausted = policies.stream()
                .filter(PolicySnapshot::isExhausted)
                .max(Comparator.comparing(PolicySnapshot::waitIfExhausted));
        if (exhausted.isPresent()) {
            return exhausted;
        }
        return policies.stream()
                .filter(p -> p.remaining() != null)
                .min(Comparator.comparingDouble(RateLimitSnapshot::allowancePerSecond)
                        .thenComparingLong(PolicySnapshot::remaining));
    }

    /**
     * The longest wait the response implies: the larger of {@link #retryAfter()} and the reset of
     * every exhausted policy; zero when neither says anything. The exact server value: a client
     * pacer adds its own safety margin (R04).
     */
    public Duration longestWait() {
        Duration wait = retryAfter == null ? Duration.ZERO : retryAfter;
        for (PolicySnapshot p : policies) {
            Duration w = p.waitIfExhausted();
            if (w.compareTo(wait) > 0) {
                wait = w;
            }
        }
        return wait;
    }

    private static double allowancePerSecond(PolicySnapshot p) {
        if (p.resetIn() == null) {
            return Double.MAX_VALUE; // no reset known: cannot rank it as restrictive
        }
        double seconds = Math.max(p.resetIn().toMillis(), 1L) / 1000.0;
        return p.remaining() / seconds;
    }
}
