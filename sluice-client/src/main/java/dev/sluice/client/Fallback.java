package dev.sluice.client;

/**
 * A degraded answer for a call Sluice could not complete because it was shed, dropped locally,
 * over quota or the server was overloaded ({@link FallbackReason}). It is consulted only for those
 * four; every other failure propagates. A fallback answer is counted apart from successes and
 * errors ({@link ClientListener#onFallback}).
 *
 * <p>It runs on the thread that completes the call, inside a {@link RetryScope}: a Sluice call it
 * makes does not retry (one layer retries, SPEC §4.7).
 *
 * @param <T> the answer type
 */
@FunctionalInterface
public interface Fallback<T> {

    /**
     * @param reason why the call may be degraded
     * @param failure the error the call would otherwise raise
     * @return the degraded answer
     * @throws Exception to fail the call after all (the exception propagates as the call's error)
     */
    T apply(FallbackReason reason, SluiceException failure) throws Exception;
}
