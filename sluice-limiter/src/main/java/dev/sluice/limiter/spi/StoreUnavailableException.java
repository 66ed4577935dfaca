package dev.sluice.limiter.spi;

/**
 * A shared {@link LimiterStore} could not reach its state within its bounded time and fails closed
 * (SPEC §3.14), for an operation whose answer has no "unavailable" form of its own: a usage read
 * ({@link LimiterStore#usageAsync} completes exceptionally with it; the edge answers
 * {@code GET /v1/usage} with 503 {@code overloaded}). Decisions never throw it: they answer
 * {@link dev.sluice.limiter.Unavailable}.
 */
public class StoreUnavailableException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** An exception saying why the store could not answer; {@code cause} may be {@code null}. */
    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
