package dev.sluice.client;

import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** Test snapshots, shaped as a dialect would produce them. */
public final class Snapshots {

    private Snapshots() {
    }

    public static RateLimitSnapshot of(int status, Outcome outcome, Duration retryAfter, PolicySnapshot... policies) {
        return new RateLimitSnapshot(status, outcome, "test", retryAfter, false, List.of(policies), null, null, Map.of());
    }

    public static RateLimitSnapshot ok(PolicySnapshot... policies) {
        return of(200, Outcome.OK, null, policies);
    }

    public static RateLimitSnapshot rateLimited(Duration retryAfter, PolicySnapshot... policies) {
        return of(429, Outcome.RATE_LIMITED, retryAfter, policies);
    }

    public static RateLimitSnapshot overloaded(int status, Duration retryAfter) {
        return of(status, Outcome.OVERLOADED, retryAfter);
    }

    public static RateLimitSnapshot quotaExhausted(String policy, Duration retryAfter, Instant resetAt) {
        return new RateLimitSnapshot(429, Outcome.QUOTA_EXHAUSTED, "test", retryAfter, false,
                List.of(quota(policy, 10_000, 86_400, 0, retryAfter)), policy, resetAt, Map.of());
    }

    public static RateLimitSnapshot status(int status, Outcome outcome) {
        return of(status, outcome, null);
    }

    public static RateLimitSnapshot cached(RateLimitSnapshot s) {
        return new RateLimitSnapshot(s.status(), s.outcome(), s.dialect(), s.retryAfter(), true, s.policies(),
                s.violatedPolicy(), s.quotaResetAt(), s.attributes());
    }

    public static PolicySnapshot burst(String name, long q, long w, long r, Duration t) {
        return new PolicySnapshot(name, q, w, r, t, "requests", PolicyKind.BURST);
    }

    public static PolicySnapshot quota(String name, long q, long w, long r, Duration t) {
        return new PolicySnapshot(name, q, w, r, t, "requests", PolicyKind.QUOTA);
    }

    public static PolicySnapshot unknown(String name, Long q, Long w, long r, Duration t) {
        return new PolicySnapshot(name, q, w, r, t, null, PolicyKind.UNKNOWN);
    }

    /** {@code p} with its reset stated as an absolute time (GitHub epoch, Anthropic RFC 3339), as a dialect marks it. */
    public static PolicySnapshot absoluteReset(PolicySnapshot p) {
        return new PolicySnapshot(p.name(), p.quota(), p.windowSeconds(), p.remaining(), p.resetIn(), p.quotaUnit(),
                p.kind(), p.used(), p.resetAt(), p.attributes(), true);
    }
}
