package dev.sluice.delivery.retry;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.TransportResult;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The delivery worker's retry rule (SPEC §6.3), as pure functions of the outcome, the attempt
 * number, the clock reading and an injected random source.
 *
 * <ul>
 *   <li>Retryable: 408, 429, 500, 502, 503, 504, timeouts, connection errors. Everything else is
 *       terminal; a 410 also disables the destination (Standard Webhooks).</li>
 *   <li>Wait: a valid Retry-After, else {@code min(900, 2^min(attempt, 9))} s; clamped to
 *       [1, 900] s; plus U(0, 0.5) s of jitter.</li>
 *   <li>A destination that does not deduplicate ({@code idempotent: false}) is not retried after
 *       an ambiguous outcome (timeout, reset): the row goes to review.</li>
 *   <li>A retry whose eligible time would fall after the event's maximum age (§6.5) is not
 *       scheduled: the event is dead-lettered {@code expired} now rather than later.</li>
 * </ul>
 *
 * <p><b>A Retry-After above 900 s</b> is honoured as given, not clamped down: the clamp's upper
 * bound limits Sluice's own backoff, and shortening a server's explicit hint only earns another
 * 429 (regression case R03: never retry before an accepted hint). Two bounds apply instead:
 * <ul>
 *   <li><b>{@code max-retry-after}</b> (default {@link #DEFAULT_MAX_RETRY_AFTER}, 24 h): a hint
 *       longer than it is absurd (a receiver answering {@code Retry-After: 31536000} means a bug or
 *       a misconfigured proxy, not "come back in a year") and is treated like an invalid one: the
 *       normal backoff applies (SPEC §6.3: "negative/absurd rejected").</li>
 *   <li><b>The event's maximum age</b> (§6.5): an accepted hint that ends after it cannot be honoured
 *       in time, and retrying earlier would undercut it, so the event is dead-lettered now with
 *       {@link DeadLetterReason#RETRY_AFTER_BEYOND_MAX_AGE}. A backoff that ends after it is plain
 *       {@link DeadLetterReason#EXPIRED}.</li>
 * </ul>
 * No worker ever waits on a hint: a retry is a row with an eligible time, so a long hint costs a
 * row, not a thread. Malformed, negative and unparseable values never reach this class (the
 * {@code Retry-After} reader of {@code sluice-wire} reports them invalid, and the backoff applies).
 *
 * <p>Thread-safe (stateless; the random source must be safe for the caller's threads).
 */
public final class RetryRules {

    /** Lower clamp of the wait (§6.3). */
    public static final Duration MIN_WAIT = Duration.ofSeconds(1);
    /** Upper clamp of the computed backoff (§6.3). */
    public static final Duration MAX_WAIT = Duration.ofSeconds(900);
    /** Jitter is U(0, this) (§6.3). */
    public static final Duration MAX_JITTER = Duration.ofMillis(500);

    /** The default longest Retry-After honoured (24 h); a longer one is treated as invalid. */
    public static final Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofHours(24);

    private static final int MAX_EXPONENT = 9; // §6.3: 2^min(attempt, 9)

    private RetryRules() {
    }

    /**
     * The backoff without a Retry-After: {@code min(900, 2^min(attempt, 9))} seconds (§6.3).
     *
     * @param attempt the number of the attempt that just failed, 1 for the first
     * @throws IllegalArgumentException if {@code attempt < 1}
     */
    public static Duration backoff(int attempt) {
        if (attempt < 1) {
            throw new IllegalArgumentException("attempt must be >= 1: " + attempt);
        }
        long seconds = 1L << Math.min(attempt, MAX_EXPONENT);
        return Duration.ofSeconds(Math.min(MAX_WAIT.toSeconds(), seconds));
    }

    /**
     * The wait before the next attempt (§6.3): the hint or the backoff, clamped to [1, 900] s (a
     * hint is never shortened; see the class comment), plus U(0, 0.5) s.
     *
     * @param attempt the number of the attempt that just failed, 1 for the first
     * @param retryAfter a valid Retry-After hint from the response, or empty
     * @param random the jitter source
     */
    public static Duration waitBeforeRetry(int attempt, Optional<Duration> retryAfter, RandomGenerator random) {
        Duration base;
        if (retryAfter.isPresent()) {
            Duration hint = retryAfter.get();
            base = hint.compareTo(MIN_WAIT) < 0 ? MIN_WAIT : hint;
        } else {
            base = clamp(backoff(attempt));
        }
        long jitterMicros = random.nextLong(MAX_JITTER.toNanos() / 1_000 + 1);
        return base.plus(Duration.ofNanos(jitterMicros * 1_000));
    }

    /**
     * The hint this worker honours: {@code retryAfter} when it is at most {@code maxRetryAfter},
     * else empty (an absurd hint is treated as invalid and the backoff applies; see the class comment).
     *
     * @param retryAfter a valid Retry-After hint, or empty
     * @param maxRetryAfter the longest hint honoured ({@code max-retry-after}), positive
     */
    public static Optional<Duration> honoured(Optional<Duration> retryAfter, Duration maxRetryAfter) {
        return retryAfter.filter(h -> h.compareTo(maxRetryAfter) <= 0);
    }

    private static Duration clamp(Duration d) {
        if (d.compareTo(MIN_WAIT) < 0) {
            return MIN_WAIT;
        }
        return d.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : d;
    }

    /**
     * The decision for one outcome, with the default {@code max-retry-after} (24 h).
     *
     * @see #decide(TransportResult, int, boolean, Optional, Instant, Instant, Duration, RandomGenerator)
     */
    public static RetryDecision decide(TransportResult result, int attempt, boolean idempotentDestination,
            Optional<Duration> retryAfter, Instant now, Instant expiresAt, RandomGenerator random) {
        return decide(result, attempt, idempotentDestination, retryAfter, now, expiresAt, DEFAULT_MAX_RETRY_AFTER,
                random);
    }

    /**
     * The decision for one outcome.
     *
     * @param result what the transport saw
     * @param attempt this attempt's number, 1 for the first
     * @param idempotentDestination whether the destination deduplicates by key
     * @param retryAfter the response's valid Retry-After, or empty (always empty for failures)
     * @param now when the outcome arrived (UTC)
     * @param expiresAt when the event's maximum age runs out
     * @param maxRetryAfter the longest Retry-After honoured; a longer one is ignored (backoff applies)
     * @param random the jitter source
     */
    public static RetryDecision decide(TransportResult result, int attempt, boolean idempotentDestination,
            Optional<Duration> retryAfter, Instant now, Instant expiresAt, Duration maxRetryAfter,
            RandomGenerator random) {
        ResponseClass cls = classOf(result);
        if (cls == ResponseClass.SUCCESS) {
            return new RetryDecision.Deliver();
        }
        if (cls == ResponseClass.GONE) {
            return new RetryDecision.DeadLetter(DeadLetterReason.DESTINATION_GONE);
        }
        if (!cls.retryable()) {
            return new RetryDecision.DeadLetter(DeadLetterReason.TERMINAL_RESPONSE);
        }
        if (cls.ambiguous() && !idempotentDestination) {
            return new RetryDecision.Review();
        }
        Optional<Duration> hint = honoured(retryAfter, maxRetryAfter);
        Duration wait = waitBeforeRetry(attempt, hint, random);
        Instant at = now.plus(wait);
        if (at.isAfter(expiresAt)) {
            return new RetryDecision.DeadLetter(hint.isPresent()
                    ? DeadLetterReason.RETRY_AFTER_BEYOND_MAX_AGE : DeadLetterReason.EXPIRED);
        }
        return new RetryDecision.RetryAt(wait, at);
    }

    /** The class of a transport result. */
    public static ResponseClass classOf(TransportResult result) {
        return switch (result) {
            case TransportResult.Answered a -> ResponseClass.ofStatus(a.status());
            case TransportResult.Failed f -> f.responseClass();
        };
    }
}
