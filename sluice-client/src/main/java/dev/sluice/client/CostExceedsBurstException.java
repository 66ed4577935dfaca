package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import org.jspecify.annotations.Nullable;

/**
 * The call costs more than the burst capacity can ever hold (400 {@code cost_exceeds_burst}, SPEC §3.10), or more than the local pacer's burst (regression case R14). Waiting cannot help: split the request. Terminal.
 */
public final class CostExceedsBurstException extends SluiceException {

    public CostExceedsBurstException(String message, int status, @Nullable RateLimitSnapshot snapshot, int attempts) {
        super(message, null, status, snapshot, attempts);
    }
}
