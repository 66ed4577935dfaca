package dev.sluice.delivery.internal;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.DeliveryListener;
import java.time.Duration;

/**
 * Calls a user's listener and logs what it throws instead of passing it on: measuring must never
 * break delivering, and a broken metrics binding must still leave a trace (a rate-limited WARN with
 * the stack trace).
 */
public final class SafeListener implements DeliveryListener {

    private final DeliveryListener delegate;
    private final RateLimitedLog log;

    public SafeListener(DeliveryListener delegate, RateLimitedLog log) {
        this.delegate = delegate;
        this.log = log;
    }

    private void guard(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            log.warn("the delivery listener " + delegate.getClass().getName() + " threw; the measurement is dropped", e);
        }
    }

    @Override
    public void onClaimed(String destination, Duration eligibleAtMinusNow) {
        guard(() -> delegate.onClaimed(destination, eligibleAtMinusNow));
    }

    @Override
    public void onTokenWait(String destination, Duration wait) {
        guard(() -> delegate.onTokenWait(destination, wait));
    }

    @Override
    public void onSuppressed(String destination, String idempotencyKey) {
        guard(() -> delegate.onSuppressed(destination, idempotencyKey));
    }

    @Override
    public void onResponse(String destination, ResponseClass responseClass, Integer status, Duration latency) {
        guard(() -> delegate.onResponse(destination, responseClass, status, latency));
    }

    @Override
    public void onScheduled(String destination, ResponseClass responseClass, Duration eligibleAtMinusNow) {
        guard(() -> delegate.onScheduled(destination, responseClass, eligibleAtMinusNow));
    }

    @Override
    public void onDelivered(String destination, String idempotencyKey, int attempts) {
        guard(() -> delegate.onDelivered(destination, idempotencyKey, attempts));
    }

    @Override
    public void onDeadLetter(String destination, DeadLetterReason reason) {
        guard(() -> delegate.onDeadLetter(destination, reason));
    }

    @Override
    public void onReview(String destination, String idempotencyKey) {
        guard(() -> delegate.onReview(destination, idempotencyKey));
    }

    @Override
    public void onLeaseLost(String destination, String idempotencyKey) {
        guard(() -> delegate.onLeaseLost(destination, idempotencyKey));
    }

    @Override
    public void onQueueDepth(DeliveryStatus status) {
        guard(() -> delegate.onQueueDepth(status));
    }

    @Override
    public void onError(Throwable error) {
        guard(() -> delegate.onError(error));
    }
}
