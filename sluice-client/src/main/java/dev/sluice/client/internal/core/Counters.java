package dev.sluice.client.internal.core;

import dev.sluice.client.AttemptOutcome;
import dev.sluice.client.CallEvent;
import dev.sluice.client.ClientListener;
import dev.sluice.client.SluiceException;
import dev.sluice.client.WaitReason;
import dev.sluice.client.FallbackReason;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedReason;
import dev.sluice.client.core.ClientStats;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The core's own counters, fed as a listener, and forwarding to the user's listener with its
 * exceptions contained (a broken listener must not break calls).
 */
final class Counters implements ClientListener {

    private static final System.Logger LOG = System.getLogger("dev.sluice.client");

    final LongAdder calls = new LongAdder();
    final LongAdder attempts = new LongAdder();
    final LongAdder accepts = new LongAdder();
    final LongAdder retries = new LongAdder();
    final LongAdder pacedRetries = new LongAdder();
    final LongAdder localDrops = new LongAdder();
    final LongAdder budgetExhaustions = new LongAdder();
    final LongAdder quotaErrors = new LongAdder();
    final LongAdder successes = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder transportResends = new LongAdder();
    private final Map<ShedReason, LongAdder> shed = new EnumMap<>(ShedReason.class);
    private final Map<FallbackReason, LongAdder> fallbacks = new EnumMap<>(FallbackReason.class);
    private final ClientListener user;

    Counters(ClientListener user) {
        this.user = user;
        for (ShedReason r : ShedReason.values()) {
            shed.put(r, new LongAdder());
        }
        for (FallbackReason r : FallbackReason.values()) {
            fallbacks.put(r, new LongAdder());
        }
    }

    ClientStats snapshot() {
        Map<ShedReason, Long> s = new EnumMap<>(ShedReason.class);
        shed.forEach((k, v) -> s.put(k, v.sum()));
        Map<FallbackReason, Long> f = new EnumMap<>(FallbackReason.class);
        fallbacks.forEach((k, v) -> f.put(k, v.sum()));
        return new ClientStats(calls.sum(), attempts.sum(), accepts.sum(), retries.sum(), localDrops.sum(),
                budgetExhaustions.sum(), quotaErrors.sum(), successes.sum(), errors.sum(), s, f,
                transportResends.sum(), pacedRetries.sum());
    }

    private void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "ClientListener threw; ignored", e);
        }
    }

    void onAttempt(CallEvent call, int attempt) {
        onAttempt(call.host(), attempt);
        safely(() -> user.onAttemptStart(call, attempt));
    }

    @Override
    public void onQueueWait(CallEvent call, Duration waited) {
        onQueueWait(call.host(), waited);
        safely(() -> user.onQueueWait(call, waited));
    }

    @Override
    public void onRetryScheduled(CallEvent call, int nextAttempt, Duration wait, WaitReason reason) {
        onRetryScheduled(call.host(), nextAttempt, wait);
        safely(() -> user.onRetryScheduled(call, nextAttempt, wait, reason));
    }

    @Override
    public void onAttemptEnd(CallEvent call, int attempt, AttemptOutcome outcome, int status) {
        safely(() -> user.onAttemptEnd(call, attempt, outcome, status));
    }

    @Override
    public void onCallEnd(CallEvent call, int attempts, Duration waited, @Nullable SluiceException error) {
        safely(() -> user.onCallEnd(call, attempts, waited, error));
    }

    @Override
    public void onAttempt(String host, int attempt) {
        attempts.increment();
        safely(() -> user.onAttempt(host, attempt));
    }

    @Override
    public void onTransportResend(String host, int attempt) {
        attempts.increment();
        transportResends.increment();
        safely(() -> user.onTransportResend(host, attempt));
    }

    @Override
    public void onAccepted(String host, int status) {
        accepts.increment();
        safely(() -> user.onAccepted(host, status));
    }

    @Override
    public void onRetryScheduled(String host, int nextAttempt, Duration wait) {
        retries.increment();
        safely(() -> user.onRetryScheduled(host, nextAttempt, wait));
    }

    @Override
    public void onLocalDrop(String host, double p) {
        localDrops.increment();
        safely(() -> user.onLocalDrop(host, p));
    }

    @Override
    public void onBudgetExhausted(String host, RetryBudgetExhaustedException.Scope scope) {
        budgetExhaustions.increment();
        safely(() -> user.onBudgetExhausted(host, scope));
    }

    @Override
    public void onQuotaExceeded(String host, @Nullable String policy, @Nullable Instant resetAt) {
        quotaErrors.increment();
        safely(() -> user.onQuotaExceeded(host, policy, resetAt));
    }

    @Override
    public void onShed(String host, ShedReason reason) {
        // both maps hold every constant from construction on
        Objects.requireNonNull(shed.get(reason)).increment();
        safely(() -> user.onShed(host, reason));
    }

    @Override
    public void onQueueWait(String host, Duration waited) {
        safely(() -> user.onQueueWait(host, waited));
    }

    @Override
    public void onFallback(String host, FallbackReason reason) {
        Objects.requireNonNull(fallbacks.get(reason)).increment();
        safely(() -> user.onFallback(host, reason));
    }

    @Override
    public void onTimeoutBelowP99(String host, Duration timeout, Duration p99) {
        LOG.log(System.Logger.Level.WARNING, "Timeout {0} for {1} is below the p99 latency {2} of its successful"
                + " calls: latency will turn into errors and errors into retries", timeout, host, p99);
        safely(() -> user.onTimeoutBelowP99(host, timeout, p99));
    }
}
