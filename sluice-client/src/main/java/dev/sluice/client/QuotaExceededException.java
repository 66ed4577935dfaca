package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Instant;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A quota policy (a calendar window, credits, billing) is spent: the answer clears at a reset hours
 * away, so it is never retried automatically (SPEC §4.2, §3.4 {@code quota_exhausted}; regression
 * case R08). Raised after the first such response, with no wait.
 */
public final class QuotaExceededException extends SluiceException {

    private final @Nullable String policy;
    private final @Nullable Instant resetAt;

    public QuotaExceededException(String message, @Nullable String policy, @Nullable Instant resetAt, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts) {
        super(message, null, status, snapshot, attempts);
        this.policy = policy;
        this.resetAt = resetAt;
    }

    /** The spent policy's name ({@code "daily"}), when the response named it. */
    public Optional<String> policy() {
        return Optional.ofNullable(policy);
    }

    /** When the quota comes back (UTC), when the response said or implied it. */
    public Optional<Instant> resetAt() {
        return Optional.ofNullable(resetAt);
    }
}
