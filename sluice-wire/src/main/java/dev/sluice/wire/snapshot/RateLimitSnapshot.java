package dev.sluice.wire.snapshot;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
        Map<String, String> attributes) {

    public RateLimitSnapshot {
        Objects.requireNonNull(outcome, "outcome");
        policies = policies == null ? List.of() : List.copyOf(policies);
        attributes = attributes == null ? Map.of() : Map.copyOf(attributes);
        if (retryAfter != null && retryAfter.isNegative()) {
            retryAfter = Duration.ZERO;
        }
    }
}
