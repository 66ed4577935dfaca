package dev.sluice.client;

import org.jspecify.annotations.Nullable;

/**
 * The exchange failed without an HTTP answer: connect failure, timeout, connection reset. The
 * {@linkplain #getCause() cause} is the transport's own exception.
 *
 * <p>{@link #outcomeUnknown()} is true when any byte of the request may have reached the server
 * (a timeout or reset after the request started): the server may have acted on it. Such a call is
 * retried only when it is safe to repeat — an idempotent method, or an Idempotency-Key is set (SPEC
 * §4.2; regression case R07a); a failure before the connection existed is always retryable.
 */
public final class TransportException extends SluiceException {

    private final boolean outcomeUnknown;

    public TransportException(String message, @Nullable Throwable cause, boolean outcomeUnknown, int attempts) {
        super(message, cause, 0, null, attempts);
        this.outcomeUnknown = outcomeUnknown;
    }

    /** True when the server may have processed the request. */
    public boolean outcomeUnknown() {
        return outcomeUnknown;
    }
}
