package dev.sluice.client;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What an outer retry layer (Resilience4j {@code Retry}, Failsafe {@code RetryPolicy}, Spring Retry,
 * an application loop) should do with a failure of a call made through Sluice (SPEC §4.7: one layer
 * retries). Without it, retries multiply: an outer loop of 4 attempts around the SDK's 3 sends up to
 * 12 requests per logical call to a server that keeps answering 429.
 *
 * <p>Every {@link SluiceException} is the SDK's final word on a call: it already retried what was
 * worth retrying, within the attempt cap, the budget and the deadline, after the server's hint; or it
 * refused without sending, for a reason another attempt right now cannot change (a spent quota, a
 * hint longer than the maximum wait, the budget, the adaptive throttle, a full queue). So an outer
 * layer must leave it alone: {@link #outerRetryAllowed} is false for it, wherever it sits in the
 * cause chain (Spring's {@code ResourceAccessException}, an {@code UncheckedIOException},
 * {@code CompletionException} wrap it). Anything else (the application's own exceptions, an
 * {@code IOException} of a transport that does not go through Sluice) is the outer layer's to decide.
 *
 * <pre>{@code
 * RetryConfig.custom().maxAttempts(4).retryOnException(SluiceRetryPredicates::outerRetryAllowed)   // Resilience4j
 * RetryPolicy.builder().withMaxAttempts(4).handleIf(SluiceRetryPredicates::outerRetryAllowed)      // Failsafe
 * }</pre>
 * Spring Retry: see the SDK README, "One layer retries". Stateless and thread-safe.
 */
public final class SluiceRetryPredicates {

    /** Causes followed at most (a loop in a cause chain ends the search). */
    private static final int MAX_DEPTH = 16;

    private SluiceRetryPredicates() {
    }

    /**
     * Whether an outer retry layer may retry after {@code failure}: false when it is, or is caused
     * by, a {@link SluiceException}; true otherwise (and for {@code null}: nothing to say).
     */
    public static boolean outerRetryAllowed(@Nullable Throwable failure) {
        return sluiceCause(failure).isEmpty();
    }

    /** The {@link SluiceException} in {@code failure}'s cause chain (itself included), if any. */
    public static Optional<SluiceException> sluiceCause(@Nullable Throwable failure) {
        Throwable t = failure;
        for (int i = 0; t != null && i < MAX_DEPTH; i++, t = t.getCause()) {
            if (t instanceof SluiceException s) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /**
     * When the server said the call may be tried again, for a scheduler that re-runs the whole job
     * later (a durable queue, not an in-process retry): the hint of a {@link RateLimitedException} or
     * {@link OverloadedException}, or the time until a {@link QuotaExceededException}'s reset from
     * {@code now}; empty when the failure carries none.
     */
    public static Optional<Duration> retryLaterAfter(Throwable failure, java.time.Instant now) {
        return sluiceCause(failure).flatMap(s -> switch (s) {
            case RateLimitedException r -> r.retryAfter();
            case OverloadedException o -> o.retryAfter();
            case QuotaExceededException q -> q.resetAt().map(at -> at.isAfter(now) ? Duration.between(now, at) : Duration.ZERO);
            default -> Optional.empty();
        });
    }
}
