package dev.sluice.delivery.spi;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.ResponseClass;
import java.time.Duration;

/**
 * Receives the worker's measurements (SPEC §6.9): token wait, duplicate suppressions, response
 * classes, {@code eligible_at − now}, queue depth, dead letters by reason. Bind it to a metrics
 * library, or use {@link dev.sluice.delivery.metrics.DeliveryCounters}.
 *
 * <p>Called on worker threads, concurrently ({@link #onDelivered} of a running worker on the thread
 * that committed the delivery, which commits the next ones after it returns): implementations
 * must be thread-safe and quick, and
 * must not throw (an exception is caught and logged, rate-limited, so that measuring never breaks
 * delivering).
 * Every method has an empty default.
 */
public interface DeliveryListener {

    /** A listener that ignores everything. */
    DeliveryListener NONE = new DeliveryListener() {
    };

    /**
     * A row was claimed; {@code eligibleAtMinusNow} is zero or negative: how late the claim came
     * after the row became eligible (the queue's lag).
     */
    default void onClaimed(String destination, Duration eligibleAtMinusNow) {
    }

    /**
     * The destination's bucket was asked for a token: {@link Duration#ZERO} when one was taken,
     * else how long until the next one (the attempt was rescheduled by that much).
     */
    default void onTokenWait(String destination, Duration wait) {
    }

    /** An attempt or enqueue was suppressed because the ledger already says delivered. */
    default void onSuppressed(String destination, String idempotencyKey) {
    }

    /**
     * An attempt ended.
     *
     * @param status the HTTP status, or {@code null} when there was no answer
     * @param latency from sending to the answer or failure
     */
    default void onResponse(String destination, ResponseClass responseClass, Integer status, Duration latency) {
    }

    /**
     * A row was rescheduled; {@code eligibleAtMinusNow} is the wait until its next attempt.
     *
     * @param responseClass the class that caused it, or {@code null} when no token was available
     */
    default void onScheduled(String destination, ResponseClass responseClass, Duration eligibleAtMinusNow) {
    }

    /** A 2xx was recorded after {@code attempts} requests. */
    default void onDelivered(String destination, String idempotencyKey, int attempts) {
    }

    /** A row was dead-lettered. */
    default void onDeadLetter(String destination, DeadLetterReason reason) {
    }

    /** A row was parked in review. */
    default void onReview(String destination, String idempotencyKey) {
    }

    /** This worker found that its lease on a row had lapsed and another worker held it. */
    default void onLeaseLost(String destination, String idempotencyKey) {
    }

    /** Periodic queue depth and state counts. */
    default void onQueueDepth(DeliveryStatus status) {
    }

    /**
     * The worker loop hit an error (usually the store) and will try again. Whatever this does, the
     * worker also logs it at WARN (logger {@code dev.sluice.delivery}, rate-limited, with the stack
     * trace), so a worker whose database is down is never silent.
     */
    default void onError(Throwable error) {
    }
}
