package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The adaptive throttle dropped a new call locally; it never reached the network (SPEC §4.5, the
 * SRE book's client-side throttling). Only a call's first attempt can be dropped: its retries are
 * governed by the retry budget, the attempt cap and the deadline (§4.2), so this error always
 * carries {@code attempts() == 0}. Carries the drop probability in force at the time.
 */
public final class LocallyThrottledException extends SluiceException {

    private final double dropProbability;

    public LocallyThrottledException(String message, double dropProbability, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts) {
        super(message, null, status, snapshot, attempts);
        this.dropProbability = dropProbability;
    }

    /** {@code max(0, (requests − K·accepts) / (requests + 1))} when the call was dropped, in [0, 1). */
    public double dropProbability() {
        return dropProbability;
    }
}
