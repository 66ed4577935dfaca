package dev.sluice.redis;

import dev.sluice.limiter.spi.StoreUnavailableException;

/**
 * Redis did not answer within the bounded time and the store is configured to fail closed, for an
 * operation whose answer has no "unavailable" form of its own (a usage read: the edge answers
 * {@code GET /v1/usage} with 503). Decisions never throw it: they answer
 * {@link dev.sluice.limiter.Unavailable} instead.
 */
public final class RedisUnavailableException extends StoreUnavailableException {

    private static final long serialVersionUID = 1L;

    /** An exception saying why Redis could not answer. */
    public RedisUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
