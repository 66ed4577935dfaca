package dev.sluice.delivery.metrics;

import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.DeliveryListener;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link DeliveryListener} that counts (SPEC §6.9), for progress lines, tests and as a model for
 * a metrics binding: responses by class, deliveries, suppressions, token waits, reschedules and
 * their {@code eligible_at − now}, dead letters by reason, reviews, lost leases, errors, and the
 * last queue-depth snapshot. Thread-safe (adders).
 */
public final class DeliveryCounters implements DeliveryListener {

    private final Map<ResponseClass, LongAdder> responses = new EnumMap<>(ResponseClass.class);
    private final Map<DeadLetterReason, LongAdder> deadLetters = new EnumMap<>(DeadLetterReason.class);
    private final LongAdder delivered = new LongAdder();
    private final LongAdder suppressed = new LongAdder();
    private final LongAdder tokensTaken = new LongAdder();
    private final LongAdder tokensDenied = new LongAdder();
    private final LongAdder tokenWaitMicros = new LongAdder();
    private final LongAdder scheduled = new LongAdder();
    private final LongAdder scheduledDelayMicros = new LongAdder();
    private final LongAccumulator maxClaimLagMicros = new LongAccumulator(Math::max, 0);
    private final LongAdder claims = new LongAdder();
    private final LongAdder reviews = new LongAdder();
    private final LongAdder leasesLost = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final AtomicReference<DeliveryStatus> lastDepth = new AtomicReference<>();
    private final AtomicReference<Throwable> lastError = new AtomicReference<>();

    public DeliveryCounters() {
        for (ResponseClass c : ResponseClass.values()) {
            responses.put(c, new LongAdder());
        }
        for (DeadLetterReason r : DeadLetterReason.values()) {
            deadLetters.put(r, new LongAdder());
        }
    }

    @Override
    public void onClaimed(String destination, Duration eligibleAtMinusNow) {
        claims.increment();
        maxClaimLagMicros.accumulate(-eligibleAtMinusNow.toNanos() / 1_000);
    }

    @Override
    public void onTokenWait(String destination, Duration wait) {
        if (wait.isZero()) {
            tokensTaken.increment();
        } else {
            tokensDenied.increment();
            tokenWaitMicros.add(wait.toNanos() / 1_000);
        }
    }

    @Override
    public void onSuppressed(String destination, String idempotencyKey) {
        suppressed.increment();
    }

    @Override
    public void onResponse(String destination, ResponseClass responseClass, Integer status, Duration latency) {
        responses.get(responseClass).increment();
    }

    @Override
    public void onScheduled(String destination, ResponseClass responseClass, Duration eligibleAtMinusNow) {
        scheduled.increment();
        scheduledDelayMicros.add(eligibleAtMinusNow.toNanos() / 1_000);
    }

    @Override
    public void onDelivered(String destination, String idempotencyKey, int attempts) {
        delivered.increment();
    }

    @Override
    public void onDeadLetter(String destination, DeadLetterReason reason) {
        deadLetters.get(reason).increment();
    }

    @Override
    public void onReview(String destination, String idempotencyKey) {
        reviews.increment();
    }

    @Override
    public void onLeaseLost(String destination, String idempotencyKey) {
        leasesLost.increment();
    }

    @Override
    public void onQueueDepth(DeliveryStatus status) {
        lastDepth.set(status);
    }

    @Override
    public void onError(Throwable error) {
        errors.increment();
        lastError.set(error);
    }

    public long responses(ResponseClass c) {
        return responses.get(c).sum();
    }

    /** Attempts that got an answer or a failure, of any class. */
    public long attempts() {
        return responses.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public long deadLetters(DeadLetterReason r) {
        return deadLetters.get(r).sum();
    }

    public long deadLetters() {
        return deadLetters.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public long delivered() {
        return delivered.sum();
    }

    public long suppressed() {
        return suppressed.sum();
    }

    public long tokensTaken() {
        return tokensTaken.sum();
    }

    public long tokensDenied() {
        return tokensDenied.sum();
    }

    /** The summed wait of denied tokens. */
    public Duration tokenWait() {
        return Duration.ofNanos(tokenWaitMicros.sum() * 1_000);
    }

    public long scheduled() {
        return scheduled.sum();
    }

    /** The summed {@code eligible_at − now} of reschedules. */
    public Duration scheduledDelay() {
        return Duration.ofNanos(scheduledDelayMicros.sum() * 1_000);
    }

    /** The largest lag between a row's eligible time and its claim. */
    public Duration maxClaimLag() {
        return Duration.ofNanos(maxClaimLagMicros.get() * 1_000);
    }

    public long claims() {
        return claims.sum();
    }

    public long reviews() {
        return reviews.sum();
    }

    public long leasesLost() {
        return leasesLost.sum();
    }

    public long errors() {
        return errors.sum();
    }

    /** The last error reported, or {@code null}. */
    public Throwable lastError() {
        return lastError.get();
    }

    /** The last queue-depth snapshot, or {@code null} before the first. */
    public DeliveryStatus lastDepth() {
        return lastDepth.get();
    }

    /** Combines listeners: each event goes to every one, in order. */
    public static DeliveryListener both(DeliveryListener a, DeliveryListener b) {
        return new DeliveryListener() {
            @Override
            public void onClaimed(String d, Duration x) {
                a.onClaimed(d, x);
                b.onClaimed(d, x);
            }

            @Override
            public void onTokenWait(String d, Duration w) {
                a.onTokenWait(d, w);
                b.onTokenWait(d, w);
            }

            @Override
            public void onSuppressed(String d, String k) {
                a.onSuppressed(d, k);
                b.onSuppressed(d, k);
            }

            @Override
            public void onResponse(String d, ResponseClass c, Integer s, Duration l) {
                a.onResponse(d, c, s, l);
                b.onResponse(d, c, s, l);
            }

            @Override
            public void onScheduled(String d, ResponseClass c, Duration x) {
                a.onScheduled(d, c, x);
                b.onScheduled(d, c, x);
            }

            @Override
            public void onDelivered(String d, String k, int n) {
                a.onDelivered(d, k, n);
                b.onDelivered(d, k, n);
            }

            @Override
            public void onDeadLetter(String d, DeadLetterReason r) {
                a.onDeadLetter(d, r);
                b.onDeadLetter(d, r);
            }

            @Override
            public void onReview(String d, String k) {
                a.onReview(d, k);
                b.onReview(d, k);
            }

            @Override
            public void onLeaseLost(String d, String k) {
                a.onLeaseLost(d, k);
                b.onLeaseLost(d, k);
            }

            @Override
            public void onQueueDepth(DeliveryStatus s) {
                a.onQueueDepth(s);
                b.onQueueDepth(s);
            }

            @Override
            public void onError(Throwable e) {
                a.onError(e);
                b.onError(e);
            }
        };
    }
}
