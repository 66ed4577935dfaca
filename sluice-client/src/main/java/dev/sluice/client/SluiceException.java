package dev.sluice.client;

import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.io.IOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Why a call made through Sluice did not produce a usable answer: the typed errors of SPEC §4.2
 * and §5.2. Each carries what the caller needs to decide without parsing a message: the status of
 * the last response (0 when no response was received), that response's normalised
 * {@link RateLimitSnapshot} (empty when there was none), and how many attempts reached the network.
 *
 * <p>It is an {@link IOException} so that {@code SluiceHttpClient.send} keeps the JDK
 * {@code HttpClient.send} signature: a caller that already handles {@code IOException} handles
 * these too, and one that wants the detail switches over the sealed subclasses. Immutable.
 */
public abstract sealed class SluiceException extends IOException
        permits QuotaExceededException, RateLimitedException, OverloadedException,
                LocallyThrottledException, RetryBudgetExhaustedException, ShedException,
                IdempotencyConflictException, CostExceedsBurstException, ClientErrorException,
                ServerErrorException, TransportException {

    private final int status;
    private final transient @Nullable RateLimitSnapshot snapshot;
    private final int attempts;

    protected SluiceException(String message, @Nullable Throwable cause, int status,
            @Nullable RateLimitSnapshot snapshot, int attempts) {
        super(message, cause);
        if (attempts < 0) {
            throw new IllegalArgumentException("attempts must be >= 0: " + attempts);
        }
        this.status = status;
        this.snapshot = snapshot;
        this.attempts = attempts;
    }

    /** The HTTP status of the last response, or 0 when the call received none. */
    public int status() {
        return status;
    }

    /** The last response's normalised rate-limit snapshot; empty when there was no response. */
    public Optional<RateLimitSnapshot> snapshot() {
        return Optional.ofNullable(snapshot);
    }

    /** How many attempts of this call were sent (0 when it failed before reaching the network). */
    public int attempts() {
        return attempts;
    }
}
