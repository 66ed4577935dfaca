package dev.sluice.client.internal.core;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.CostExceedsBurstException;
import dev.sluice.client.DeadlineExceededException;
import dev.sluice.client.FallbackReason;
import dev.sluice.client.LocallyThrottledException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryBudgetExhaustedException;
import dev.sluice.client.ShedException;
import dev.sluice.client.ShedReason;
import dev.sluice.client.SluiceException;
import dev.sluice.client.TransportException;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientCore;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.core.CoreCall;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.core.Decision;
import dev.sluice.client.core.Dispatch;
import dev.sluice.client.internal.admission.AdmissionQueue;
import dev.sluice.client.internal.observe.DependencyProfile;
import dev.sluice.client.internal.pacing.Pacer;
import dev.sluice.client.internal.retry.AttemptLedger;
import dev.sluice.client.internal.retry.Classification;
import dev.sluice.client.internal.retry.Classifier;
import dev.sluice.client.internal.retry.InMemoryRetryBudget;
import dev.sluice.client.internal.retry.RetryWait;
import dev.sluice.client.internal.throttle.AdaptiveThrottle;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The reference {@link ClientCore}: one lock around small, non-blocking sections; no threads; time
 * from the environment's {@link TimeSource} only. See {@link ClientCore} for the protocol.
 */
public final class DefaultClientCore<A> implements ClientCore<A> {

    /** Keys remembered for the per-key attempt cap, and for how long (the edge keeps records 24 h). */
    private static final int LEDGER_KEYS = 100_000;
    private static final Duration LEDGER_TTL = Duration.ofHours(24);

    private final ReentrantLock lock = new ReentrantLock();
    private final ClientConfig config;
    private final CoreEnvironment env;
    private final TimeSource time;
    private final Counters counters;
    private final Classifier classifier;
    private final RetryWait retryWait;
    private final AdaptiveThrottle throttle;
    private final RetryBudgetStore budget;
    private final Pacer pacer;
    private final AdmissionQueue<CallState<A>> queue;
    private final AttemptLedger ledger;
    private final Map<String, DependencyProfile> profiles = new HashMap<>();
    private final PriorityQueue<CallState<A>> retryTimers;
    private final List<Dispatch.Rejection<A>> pending = new ArrayList<>();
    private final long maxWaitNanos;
    private final AdmissionQueue.Gate<CallState<A>> gate = this::gate;
    private long nextId;

    public DefaultClientCore(ClientConfig config, CoreEnvironment env) {
        this.config = config;
        this.env = env;
        this.time = env.time();
        this.counters = new Counters(env.listener());
        long now = time.nanoTime();
        this.classifier = new Classifier(config.retry().resetMargin());
        this.retryWait = new RetryWait(config.retry());
        this.throttle = new AdaptiveThrottle(config.throttle());
        this.budget = env.budget() != null ? env.budget() : new InMemoryRetryBudget(config.budget());
        this.pacer = new Pacer(config.pacer(), env.bucket() != null ? env.bucket() : Pacer.inMemoryStore(now),
                config.retry().resetMargin(), now);
        this.queue = new AdmissionQueue<>(config.admission());
        this.ledger = new AttemptLedger(config.retry().maxAttemptsPerIdempotencyKey(), LEDGER_KEYS, LEDGER_TTL);
        this.retryTimers = new PriorityQueue<>((a, b) -> Long.signum(a.retryAtNanos - b.retryAtNanos));
        this.maxWaitNanos = config.retry().maxWait().toNanos();
    }

    @Override
    public CoreCall<A> open(CallSpec spec, A attachment) throws SluiceException {
        lock.lock();
        try {
            long now = time.nanoTime();
            counters.calls.increment();
            String host = spec.host();
            String key = spec.idempotencyKey();
            if (key == null && !spec.idempotentMethod() && config.retry().mintIdempotencyKeys()) {
                key = env.idempotencyKeys().get(); // once per logical call (R07b)
            }
            if (key != null && ledger.left(key, now) == 0) {
                counters.onBudgetExhausted(host, RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS);
                throw countError(new RetryBudgetExhaustedException("Idempotency-Key " + key + " has used all "
                        + ledger.cap() + " attempts it may make (SPEC §4.4)",
                        RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS, null, 0, null, 0));
            }
            if (spec.cost() > pacer.capacity()) {
                throw countError(new CostExceedsBurstException("cost " + spec.cost() + " exceeds the pacer's burst "
                        + (long) pacer.capacity() + ": it can never be granted; split the call", 0, null, 0));
            }
            boolean hasDeadline = spec.deadline() != null;
            long deadline = hasDeadline ? now + Math.min(spec.deadline().toNanos(), Long.MAX_VALUE / 4) : 0;
            int maxAttempts = spec.retries() ? config.retry().maxAttempts() : 1;
            CallState<A> call = new CallState<>(nextId++, spec, attachment, key, hasDeadline, deadline, maxAttempts);
            // what the client knows for certain answers before the throttle's random drop: a spent
            // quota, a pause longer than the maximum wait, a token that comes after the deadline
            SluiceException refused = pacerRefusal(call, pacer.readyInNanos(spec.cost(), now), now,
                    ShedReason.DEADLINE_AT_SUBMIT);
            if (refused != null) {
                call.phase = CallState.Phase.DONE;
                throw countError(refused);
            }
            double p = throttle.tryDrop(now, env.random());
            if (p >= 0) {
                counters.onLocalDrop(host, p);
                throw countError(new LocallyThrottledException(String.format(
                        "dropped locally by adaptive throttling (p = %.3f, SPEC §4.5)", p), p, 0, null, 0));
            }
            SluiceException shed = enqueue(call, now);
            if (shed != null) {
                throw shed;
            }
            budget.recordRequest(now);
            return call;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Dispatch<A> poll() {
        lock.lock();
        try {
            long now = time.nanoTime();
            pacer.refresh(now);
            List<Dispatch.Rejection<A>> failed = new ArrayList<>(pending);
            pending.clear();
            while (!retryTimers.isEmpty() && retryTimers.peek().retryAtNanos - now <= 0) {
                // a retry was granted by the budget, the attempt cap and the deadline when its answer
                // came (SPEC §4.2); the adaptive throttle decides about new calls only (§4.5)
                CallState<A> call = retryTimers.poll();
                SluiceException shed = enqueue(call, now);
                if (shed != null) {
                    failed.add(new Dispatch.Rejection<>(call, shed));
                }
            }
            failed.addAll(pending);
            pending.clear();
            AdmissionQueue.Poll<CallState<A>> poll = queue.poll(now, gate);
            List<CoreCall<A>> start = new ArrayList<>(poll.started().size());
            for (CallState<A> call : poll.started()) {
                call.attempts++;
                call.phase = CallState.Phase.IN_FLIGHT;
                call.startedNanos = now;
                if (call.idempotencyKey != null) {
                    ledger.record(call.idempotencyKey, now);
                }
                String host = call.spec.host();
                profile(host).recordAttempt(now);
                counters.onAttempt(host, call.attempts);
                counters.onQueueWait(host, Duration.ofNanos(Math.max(0, now - call.enqueuedNanos)));
                start.add(call);
            }
            for (AdmissionQueue.Removed<CallState<A>> r : poll.expired()) {
                counters.onShed(r.item().spec.host(), r.reason());
                failed.add(end(r.item(), new DeadlineExceededException("deadline passed while queued; never started",
                        ShedReason.DEADLINE_AT_DEQUEUE, r.item().attempts)));
            }
            for (CallState<A> call : poll.rejectedByGate()) {
                failed.add(end(call, call.gateError));
            }
            OptionalLong wake = poll.wakeAtNanos();
            if (!retryTimers.isEmpty()) {
                long t = retryTimers.peek().retryAtNanos;
                if (wake.isEmpty() || t - wake.getAsLong() < 0) {
                    wake = OptionalLong.of(t);
                }
            }
            return new Dispatch<>(start, failed, wake);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Decision onAnswer(CoreCall<A> handle, Answer answer) {
        CallState<A> call = state(handle);
        lock.lock();
        try {
            if (call.phase == CallState.Phase.DONE) {
                return new Decision.Fail(new TransportException("call was cancelled", null, false, call.attempts));
            }
            if (call.phase != CallState.Phase.IN_FLIGHT) {
                throw new IllegalStateException("no attempt in flight for " + call);
            }
            queue.release();
            long now = time.nanoTime();
            Instant wallNow = time.now();
            pacer.endHold(now); // the server has seen our calls: pacing follows its clock from here
            String host = call.spec.host();
            if (answer instanceof Answer.Failure f && f.transportResends() > 0) {
                countTransportResends(call, f.transportResends(), now);
            }
            Classification c = classifier.classify(answer, call.safeToRepeat(), call.attempts, wallNow);
            throttle.recordAnswer(now, c.accepted()); // on completion (R12)
            if (answer instanceof Answer.Response r) {
                call.lastStatus = r.snapshot().status();
                call.lastSnapshot = r.snapshot();
                if (c.accepted()) {
                    counters.onAccepted(host, r.snapshot().status());
                }
                if (r.snapshot().outcome() != Outcome.OVERLOADED) {
                    pacer.observe(r.snapshot(), now, wallNow); // an overload never touches limit state (R09)
                }
            }
            return switch (c) {
                case Classification.Success s -> {
                    DependencyProfile profile = profile(host);
                    profile.recordSuccess(Duration.ofNanos(Math.max(0, now - call.startedNanos)));
                    Duration timeout = call.spec.attemptTimeout();
                    if (timeout != null && profile.shouldWarn(timeout)) {
                        counters.onTimeoutBelowP99(host, timeout, profile.p99());
                    }
                    call.phase = CallState.Phase.DONE;
                    counters.successes.increment();
                    yield new Decision.Return();
                }
                case Classification.Terminal t -> {
                    if (t.error() instanceof QuotaExceededException q) {
                        counters.onQuotaExceeded(host, q.policy().orElse(null), q.resetAt().orElse(null));
                        rememberSpentQuota(q, answer, now, wallNow);
                    }
                    yield fail(call, t.error());
                }
                case Classification.Retryable r -> {
                    if (r.kind() == Classification.Kind.RATE_LIMITED) {
                        pacer.onRateLimited(r.hint(), now);
                        queue.penalise(r.hint(), now);
                    }
                    yield decideRetry(call, r, now);
                }
            };
        } finally {
            lock.unlock();
        }
    }

    /**
     * The transport sent the attempt more than once underneath (the JDK HttpClient's own re-send of
     * a GET/HEAD): every send counts as an attempt of the call, a request refused in the throttle
     * window (R12), a retry of the budget when it has room (§4.2) and an attempt of the key (§4.4),
     * so the cap and the counts stay true to what reached the server (SPEC §4.7).
     */
    private void countTransportResends(CallState<A> call, int resends, long now) {
        String host = call.spec.host();
        call.transportMayResend = true;
        for (int i = 0; i < resends; i++) {
            call.attempts++;
            throttle.recordAnswer(now, false);
            budget.tryAcquireRetry(now);
            if (call.idempotencyKey != null) {
                ledger.record(call.idempotencyKey, now);
            }
            profile(host).recordAttempt(now);
            counters.onTransportResend(host, call.attempts);
        }
    }

    private Decision decideRetry(CallState<A> call, Classification.Retryable r, long now) {
        String host = call.spec.host();
        // an attempt the transport may send twice (it just did, or may have) needs room for two
        int nextSends = call.transportMayResend ? 2 : 1;
        if (call.attempts + nextSends > call.maxAttempts) {
            String why;
            if (call.maxAttempts == 1 && !call.spec.retries()) {
                why = "retries are off for this call (a layer above retries, SPEC §4.7)";
            } else if (call.attempts < call.maxAttempts) {
                why = call.attempts + " of " + call.maxAttempts + " attempts used, and the next could be sent twice:"
                        + " the JDK HttpClient re-sends a " + call.spec.method() + " whose connection closes before"
                        + " any response byte (it may have done so already)";
            } else {
                why = "all " + call.maxAttempts + " attempts used";
            }
            return fail(call, r.giveUp().apply(why));
        }
        if (call.idempotencyKey != null && ledger.left(call.idempotencyKey, now) < nextSends) {
            counters.onBudgetExhausted(host, RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS);
            SluiceException last = r.giveUp().apply("the Idempotency-Key's attempt cap is reached");
            return fail(call, new RetryBudgetExhaustedException("Idempotency-Key " + call.idempotencyKey
                    + " has used all " + ledger.cap() + " attempts (SPEC §4.4)",
                    RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS, last, last.status(),
                    last.snapshot().orElse(null), call.attempts));
        }
        // every refusal is decided now, before any wait (R03, SPEC §4.2–§4.3); the budget last, so that
        // a retry refused for another reason spends none of it
        Duration hint = r.hint();
        if (hint != null && hint.compareTo(config.retry().maxWait()) > 0) {
            // never undercut a hint: fail now and carry it (SPEC §2.4, R03)
            return fail(call, r.giveUp().apply("the server asked for " + hint.toSeconds()
                    + " s, more than the maximum wait of " + config.retry().maxWait().toSeconds() + " s"));
        }
        long hintNanos = hint == null ? 0 : hint.toNanos();
        long pacerNanos = pacer.readyInNanos(call.spec.cost(), now);
        if (pacerNanos > maxWaitNanos) {
            SluiceException quota = spentQuotaError(call, now);
            return fail(call, quota != null ? quota : r.giveUp().apply("the pacer cannot grant a token for "
                    + Duration.ofNanos(pacerNanos).toSeconds() + " s, more than the maximum wait of "
                    + config.retry().maxWait().toSeconds() + " s"));
        }
        long latestNanos = maxWaitNanos;
        if (call.hasDeadline) {
            long left = call.deadlineNanos - now;
            long earliest = Math.max(hintNanos, pacerNanos);
            if (earliest - left >= 0) {
                String why = pacerNanos > hintNanos ? "the pacer's next token" : hint != null ? "the server's hint" : "now";
                return fail(call, r.giveUp().apply("a retry after at least " + Duration.ofNanos(earliest).toMillis()
                        + " ms (" + why + ") would start after the call's deadline, " + Math.max(0, left) / 1_000_000
                        + " ms away (SPEC §4.3)"));
            }
            latestNanos = Math.min(latestNanos, left - 1); // start strictly before the deadline
        }
        // the jitter is drawn within what fits (the maximum wait, the deadline): a hint that fits is
        // waited in full, only its jitter is trimmed (R03)
        Duration latest = Duration.ofNanos(latestNanos);
        Duration wait = hint != null ? retryWait.afterHint(hint, latest, env.random())
                : retryWait.fullJitter(call.attempts, latest, env.random());
        if (wait.compareTo(latest) > 0) {
            wait = latest; // float rounding only; latest >= hint here
        }
        long waitNanos = wait.toNanos();
        if (!budget.tryAcquireRetry(now)) {
            counters.onBudgetExhausted(host, RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET);
            SluiceException last = r.giveUp().apply("the retry budget is spent");
            return fail(call, new RetryBudgetExhaustedException("retry budget spent: retries over the last "
                    + config.budget().window().toSeconds() + " s reached " + Math.round(config.budget().ratio() * 100)
                    + " % of requests or the floor of " + config.budget().minRetries() + ", whichever is more (SPEC §4.2)",
                    RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET,
                    last, last.status(), last.snapshot().orElse(null), call.attempts));
        }
        call.phase = CallState.Phase.WAITING_TO_RETRY;
        call.retryAtNanos = now + waitNanos;
        retryTimers.add(call);
        counters.onRetryScheduled(host, call.attempts + 1, wait);
        return new Decision.RetryAfter(wait);
    }

    @Override
    public void cancel(CoreCall<A> handle) {
        CallState<A> call = state(handle);
        lock.lock();
        try {
            switch (call.phase) {
                case QUEUED -> queue.remove(call);
                case WAITING_TO_RETRY -> retryTimers.remove(call);
                case IN_FLIGHT -> {
                    queue.release();
                    if (queue.inFlight() == 0) {
                        pacer.endHold(time.nanoTime()); // no answer will end it
                    }
                }
                case DONE -> {
                    return;
                }
            }
            call.phase = CallState.Phase.DONE;
            pending.removeIf(r -> r.call() == call);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void observe(dev.sluice.wire.snapshot.RateLimitSnapshot snapshot) {
        lock.lock();
        try {
            pacer.observe(snapshot, time.nanoTime(), time.now());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void recordFallback(String host, FallbackReason reason) {
        counters.onFallback(host, reason);
    }

    @Override
    public ClientStats stats() {
        return counters.snapshot();
    }

    /** The pacer, for tests and the transport's usage seeding; use under no lock of yours. */
    public Pacer pacer() {
        return pacer;
    }

    /** Per-host figures: attempts per second over the last minute and the p99 of successes. */
    public HostProfile hostProfile(String host) {
        lock.lock();
        try {
            DependencyProfile p = profile(host);
            return new HostProfile(p.requestsPerSecond(time.nanoTime()), p.p99(), p.samples());
        } finally {
            lock.unlock();
        }
    }

    /** The adaptive throttle's window now: requests and accepts counted, and the drop probability. */
    public ThrottleWindow throttleWindow() {
        lock.lock();
        try {
            long now = time.nanoTime();
            return new ThrottleWindow(throttle.requests(now), throttle.accepts(now), throttle.dropProbability(now));
        } finally {
            lock.unlock();
        }
    }

    /** The adaptive throttle's counts over its window (SPEC §4.5) and the probability they give. */
    public record ThrottleWindow(long requests, long accepts, double dropProbability) {
    }

    /** "Know the dependency" figures for one host. */
    public record HostProfile(double requestsPerSecond, Duration p99, int samples) {
    }

    /** Queue figures for tests and metrics. */
    public int queued() {
        lock.lock();
        try {
            return queue.size();
        } finally {
            lock.unlock();
        }
    }

    public int inFlight() {
        lock.lock();
        try {
            return queue.inFlight();
        } finally {
            lock.unlock();
        }
    }

    // --- under the lock ---

    /** Puts a call in the queue; returns the error to end it with when the queue refuses it. */
    private SluiceException enqueue(CallState<A> call, long now) {
        AdmissionQueue.Admission<CallState<A>> a = queue.submit(call, call.spec.priority(), call.id,
                call.hasDeadline, call.deadlineNanos, now);
        return switch (a) {
            case AdmissionQueue.Admission.Admitted<CallState<A>> ok -> {
                call.phase = CallState.Phase.QUEUED;
                call.enqueuedNanos = now;
                CallState<A> victim = ok.evicted();
                if (victim != null) {
                    counters.onShed(victim.spec.host(), ShedReason.EVICTED);
                    pending.add(end(victim, new ShedException("evicted by a more urgent call from a full queue",
                            ShedReason.EVICTED, Duration.ofSeconds(1), victim.attempts)));
                }
                yield null;
            }
            case AdmissionQueue.Admission.Rejected<CallState<A>> no -> {
                counters.onShed(call.spec.host(), no.reason());
                call.phase = CallState.Phase.DONE;
                counters.errors.increment();
                yield no.reason() == ShedReason.DEADLINE_AT_SUBMIT
                        ? new DeadlineExceededException("deadline passed or cannot be met; not queued",
                                ShedReason.DEADLINE_AT_SUBMIT, call.attempts)
                        : new ShedException("admission queue full (" + config.admission().maxQueue() + ")",
                                no.reason(), no.retryHint(), call.attempts);
            }
        };
    }

    /** The pacer gate: a token just before the start (SPEC §4.6); refuse waits nobody can afford. */
    private long gate(CallState<A> call, long now) {
        long wait;
        try {
            wait = pacer.tryAcquire(call.spec.cost(), now);
        } catch (IllegalArgumentException e) {
            call.gateError = new CostExceedsBurstException("cost " + call.spec.cost()
                    + " exceeds the pacer's burst: it can never be granted; split the call",
                    call.lastStatus, call.lastSnapshot, call.attempts);
            return AdmissionQueue.Gate.REJECT;
        }
        if (wait == 0) {
            return 0;
        }
        SluiceException refused = pacerRefusal(call, wait, now, ShedReason.DEADLINE_AT_DEQUEUE);
        if (refused != null) {
            call.gateError = refused;
            return AdmissionQueue.Gate.REJECT;
        }
        return wait;
    }

    /**
     * The pacer's answer for a call that would have to wait {@code waitNanos} for its token: a spent
     * quota or a pause past the maximum wait (never undercut, SPEC §2.4), or a token that comes after
     * the call's deadline; {@code null} when the call may wait. Counts what it refuses.
     */
    private SluiceException pacerRefusal(CallState<A> call, long waitNanos, long now, ShedReason deadlineReason) {
        if (waitNanos > maxWaitNanos) {
            SluiceException quota = spentQuotaError(call, now);
            if (quota != null) {
                return quota;
            }
            Duration hint = Duration.ofNanos(waitNanos);
            return new RateLimitedException("the pacer cannot grant a token for " + hint.toSeconds()
                    + " s, more than the maximum wait of " + config.retry().maxWait().toSeconds()
                    + " s; not sent", hint, call.lastStatus, call.lastSnapshot, call.attempts);
        }
        if (call.hasDeadline && (now + waitNanos) - call.deadlineNanos >= 0) {
            counters.onShed(call.spec.host(), deadlineReason);
            return new DeadlineExceededException("the pacer's next token comes after the deadline;"
                    + " never started", deadlineReason, call.attempts);
        }
        return null;
    }

    /** {@code QuotaExceededException} when a spent quota pauses the pacer now (counted), else {@code null}. */
    private SluiceException spentQuotaError(CallState<A> call, long now) {
        Pacer.Block block = pacer.block(now);
        if (block == null || block.kind() != PolicyKind.QUOTA) {
            return null;
        }
        counters.onQuotaExceeded(call.spec.host(), block.policy(), block.resetAt());
        return new QuotaExceededException("quota \"" + block.policy() + "\" is spent until " + block.resetAt()
                + " (reported by an earlier response); not sent", block.policy(), block.resetAt(),
                call.lastStatus, call.lastSnapshot, call.attempts);
    }

    /**
     * A quota answer the pacer could not read from RateLimit fields (a problem body with only a
     * Retry-After): pause it until the reset anyway, so later calls are answered without a request.
     */
    private void rememberSpentQuota(QuotaExceededException q, Answer answer, long now, Instant wallNow) {
        Pacer.Block block = pacer.block(now);
        if (block != null && block.kind() == PolicyKind.QUOTA) {
            return; // the policies said it already
        }
        Duration wait = null;
        if (answer instanceof Answer.Response r) {
            wait = r.snapshot().suggestedWait(config.retry().resetMargin()).orElse(null);
        }
        if (wait == null && q.resetAt().isPresent()) {
            wait = Duration.between(wallNow, q.resetAt().get()).plus(config.retry().resetMargin());
        }
        if (wait != null) {
            pacer.onQuotaExhausted(q.policy().orElse(null), wait, q.resetAt().orElse(wallNow.plus(wait)), now);
        }
    }

    private Decision fail(CallState<A> call, SluiceException error) {
        call.phase = CallState.Phase.DONE;
        counters.errors.increment();
        return new Decision.Fail(error);
    }

    private Dispatch.Rejection<A> end(CallState<A> call, SluiceException error) {
        call.phase = CallState.Phase.DONE;
        counters.errors.increment();
        return new Dispatch.Rejection<>(call, error);
    }

    private SluiceException countError(SluiceException e) {
        counters.errors.increment();
        return e;
    }

    private DependencyProfile profile(String host) {
        return profiles.computeIfAbsent(host, h -> new DependencyProfile());
    }

    @SuppressWarnings("unchecked")
    private CallState<A> state(CoreCall<A> handle) {
        if (handle instanceof CallState<?> s) {
            return (CallState<A>) s;
        }
        throw new IllegalArgumentException("not a call of this core: " + handle);
    }
}
