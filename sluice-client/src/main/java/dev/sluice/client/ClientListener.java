package dev.sluice.client;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Observes what the client does, as events to count (SPEC §4.9, §5.5): requests, accepts, retries,
 * local drops, budget exhaustions, quota errors, shed calls by reason, fallbacks, wait time.
 * Every method has an empty default, so a listener implements only what it counts.
 *
 * <p>Called synchronously on the thread that drives the client, sometimes while the client's
 * internal lock is held: implementations must be fast, thread-safe, must not block and must not
 * call back into the client. An exception thrown by a listener is caught and ignored.
 * {@code dev.sluice.client.micrometer.MicrometerClientListener} binds these to Micrometer.
 */
public interface ClientListener {

    /** An attempt is about to be sent ({@code attempt} 1 for the first, 2 for the first retry, ...). */
    default void onAttempt(String host, int attempt) {
    }

    /**
     * The transport may have sent attempt {@code attempt} underneath the previous one (the JDK
     * HttpClient re-sends a GET/HEAD whose connection closed before any response byte); it is
     * counted as an attempt of the call.
     */
    default void onTransportResend(String host, int attempt) {
    }

    /** An answer counted as accepted by the adaptive throttle (not 429/503/overload). */
    default void onAccepted(String host, int status) {
    }

    /** A retry was granted; it will start after {@code wait}. */
    default void onRetryScheduled(String host, int nextAttempt, Duration wait) {
    }

    /** The adaptive throttle dropped a call locally (SPEC §4.5). */
    default void onLocalDrop(String host, double dropProbability) {
    }

    /** A budget refused a retry, or a caller's Idempotency-Key had no attempts left. */
    default void onBudgetExhausted(String host, RetryBudgetExhaustedException.Scope scope) {
    }

    /** A quota was found spent (SPEC §4.2); {@code policy} and {@code resetAt} may be null. */
    default void onQuotaExceeded(String host, @Nullable String policy, @Nullable Instant resetAt) {
    }

    /** The admission queue shed a call (SPEC §5.5). */
    default void onShed(String host, ShedReason reason) {
    }

    /** A call started after waiting {@code waited} in the admission queue (pacer, slot, penalty). */
    default void onQueueWait(String host, Duration waited) {
    }

    /** A fallback answered instead of an error (degrade rather than fail). */
    default void onFallback(String host, FallbackReason reason) {
    }

    /**
     * Once per host: the configured per-attempt timeout is below the p99 latency of that host's
     * successful calls, so latency will turn into errors and errors into retries.
     */
    default void onTimeoutBelowP99(String host, Duration timeout, Duration p99) {
    }

    // --- per call: what each event is about (SPEC §4.9). Called beside the per-host events above. ---

    /** Attempt {@code attempt} of {@code call} is about to be sent. */
    default void onAttemptStart(CallEvent call, int attempt) {
    }

    /**
     * Attempt {@code attempt} of {@code call} was answered (or failed): {@code status} is the HTTP
     * status, 0 when there was no response.
     */
    default void onAttemptEnd(CallEvent call, int attempt, AttemptOutcome outcome, int status) {
    }

    /**
     * {@code call} will send attempt {@code nextAttempt} after {@code wait}, chosen for
     * {@code reason} ({@link WaitReason#HINT} or {@link WaitReason#JITTER}); it may then wait in
     * the queue too ({@link #onQueueWait(CallEvent, Duration)}).
     */
    default void onRetryScheduled(CallEvent call, int nextAttempt, Duration wait, WaitReason reason) {
    }

    /** {@code call} waited {@code waited} in the admission queue ({@link WaitReason#PACER}) before an attempt. */
    default void onQueueWait(CallEvent call, Duration waited) {
    }

    /**
     * {@code call} ended: with an answer ({@code error} {@code null}) or with {@code error};
     * {@code attempts} sent, {@code waited} in all (retry waits and queue time).
     */
    default void onCallEnd(CallEvent call, int attempts, Duration waited, @Nullable SluiceException error) {
    }

    /** A listener that does nothing. */
    static ClientListener none() {
        return NoOp.INSTANCE;
    }

    /** The no-op listener. */
    enum NoOp implements ClientListener {
        INSTANCE
    }
}
