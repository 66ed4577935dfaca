package dev.sluice.client.internal.core;

import dev.sluice.client.AttemptOutcome;
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
import dev.sluice.client.WaitReason;
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
import dev.sluice.client.internal.pacing.InMemoryTokenBucket;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.snapshot.Outcome;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

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
    /** The user's shared bucket, asked off the lock; {@code null} for the in-memory one. */
    private final @Nullable TokenBucketStore sharedBucket;
    /** The user's shared budget, asked off the lock; {@code null} for the in-memory one. */
    private final OffLockStores.@Nullable Budget sharedBudget;
    private final Pacer pacer;
    private final AdmissionQueue<CallState<A>> queue;
    private final AttemptLedger ledger;
    private final Map<String, DependencyProfile> profiles = new HashMap<>();
    private final PriorityQueue<CallState<A>> retryTimers;
    private final List<Dispatch.Rejection<A>> pending = new ArrayList<>();
    /**
     * Retries whose wait is over, waiting for room in the retry budget: the most recent first (the
     * one with the most time left, as in adaptive LIFO), so that a short incident's backlog does not
     * make every call behind it late too.
     */
    private final ArrayDeque<CallState<A>> budgetWaiters = new ArrayDeque<>();
    private final long maxWaitNanos;
    /** How often a retry waiting for room in the retry budget asks again, in nanoseconds (the 5 s window's slot). */
    public static final long BUDGET_RECHECK_NANOS = 100_000_000L;
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
        // a user-supplied store (Redis-shared, SPEC §4.8) may block: it is never called under the lock
        // (OffLockStores); the in-memory ones are O(1) and stay inline, so a simulation stays deterministic
        TokenBucketStore envBucket = env.bucket();
        RetryBudgetStore envBudget = env.budget();
        // starts no thread until a write is queued
        OffLockStores.SerialExecutor writes = new OffLockStores.SerialExecutor();
        if (envBucket != null && !(envBucket instanceof InMemoryTokenBucket)) {
            this.sharedBucket = envBucket;
            envBucket = new OffLockStores.Bucket(envBucket, writes);
        } else {
            this.sharedBucket = null;
        }
        if (envBudget != null && !(envBudget instanceof InMemoryRetryBudget)) {
            OffLockStores.Budget shared = new OffLockStores.Budget(envBudget, writes);
            this.sharedBudget = shared;
            this.budget = shared;
        } else {
            this.sharedBudget = null;
            this.budget = envBudget != null ? envBudget : new InMemoryRetryBudget(config.budget());
        }
        TokenBucketStore bucket = envBucket != null ? envBucket : Pacer.inMemoryStore(now);
        this.pacer = new Pacer(config.pacer(), bucket, config.retry().resetMargin(), now);
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
            Duration specDeadline = spec.deadline();
            boolean hasDeadline = specDeadline != null;
            long deadline = specDeadline != null ? now + Math.min(specDeadline.toNanos(), Long.MAX_VALUE / 4) : 0;
            int maxAttempts = spec.retries() ? config.retry().maxAttempts() : 1;
            CallState<A> call = new CallState<>(nextId++, spec, attachment, key, hasDeadline, deadline, maxAttempts);
            call.idleSinceNanos = now;
            if (key != null && ledger.left(key, now) == 0) {
                counters.onBudgetExhausted(host, RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS);
                throw refuse(call, new RetryBudgetExhaustedException("Idempotency-Key " + key + " has used all "
                        + ledger.cap() + " attempts it may make (SPEC §4.4)",
                        RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS, null, 0, null, 0));
            }
            if (spec.cost() > pacer.capacity()) {
                throw refuse(call, new CostExceedsBurstException("cost " + spec.cost() + " exceeds the pacer's burst "
                        + (long) pacer.capacity() + ": it can never be granted; split the call", 0, null, 0));
            }
            // what the client knows for certain answers before the throttle's random drop: a spent
            // quota, a pause longer than the maximum wait, a token that comes after the deadline
            SluiceException refused = pacerRefusal(call, pacer.readyInNanos(spec.cost(), now), now,
                    ShedReason.DEADLINE_AT_SUBMIT);
            if (refused != null) {
                throw refuse(call, refused);
            }
            double p = throttle.tryDrop(now, env.random());
            if (p >= 0) {
                counters.onLocalDrop(host, p);
                throw refuse(call, new LocallyThrottledException(String.format(
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
        List<CallState<A>> reserved = new ArrayList<>(0);
        List<CallState<A>> budgetAsks = new ArrayList<>(0);
        Dispatch<A> d;
        lock.lock();
        try {
            d = pollLocked(reserved, budgetAsks);
        } finally {
            lock.unlock();
        }
        if (!reserved.isEmpty()) {
            d = commitReserved(d, reserved);
        }
        if (!budgetAsks.isEmpty()) {
            d = commitBudgetAsk(d, budgetAsks.get(0));
        }
        return d;
    }

    /** Asks the shared bucket for the reserved calls' tokens off the lock, then starts or re-queues them. */
    private Dispatch<A> commitReserved(Dispatch<A> d, List<CallState<A>> reserved) {
        // reserve, ask, commit: the shared bucket is asked off the lock (SPEC §4.8 stores may block)
        long[] waits = new long[reserved.size()];
        if (waits.length == 1) {
            waits[0] = askSharedBucket(reserved.get(0));
        } else {
            // several calls reserved at once are asked in parallel: one store delay for all, not one each
            Thread[] asks = new Thread[waits.length];
            for (int i = 0; i < waits.length; i++) {
                int at = i;
                asks[i] = Thread.ofVirtual().start(() -> waits[at] = askSharedBucket(reserved.get(at)));
            }
            boolean interrupted = false;
            for (Thread t : asks) {
                while (true) {
                    try {
                        t.join(); // the store answers or fails within its own timeout
                        break;
                    } catch (InterruptedException e) {
                        interrupted = true; // the reserved calls must still be committed or put back
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        lock.lock();
        try {
            long now = time.nanoTime();
            List<CoreCall<A>> start = new ArrayList<>(d.start());
            List<Dispatch.Rejection<A>> failed = new ArrayList<>(d.failed());
            OptionalLong wake = d.wakeAtNanos();
            for (int i = 0; i < waits.length; i++) {
                CallState<A> call = reserved.get(i);
                if (call.phase != CallState.Phase.RESERVED) {
                    continue; // cancelled meanwhile (its slot was freed then)
                }
                long wait = waits[i];
                if (wait == AdmissionQueue.Gate.REJECT) {
                    queue.release();
                    failed.add(end(call, new CostExceedsBurstException("cost " + call.spec.cost()
                            + " exceeds the shared bucket's capacity: it can never be granted; split the call",
                            call.lastStatus, call.lastSnapshot, call.attempts)));
                    continue;
                }
                pacer.afterTake(call.reservedTake, wait, now);
                if (wait == 0) {
                    start.add(startAttempt(call, now));
                    continue;
                }
                SluiceException refused = pacerRefusal(call, wait, now, ShedReason.DEADLINE_AT_DEQUEUE);
                if (refused != null) {
                    queue.release();
                    failed.add(end(call, refused));
                    continue;
                }
                call.phase = CallState.Phase.QUEUED;
                queue.putBack(call, call.spec.priority().level(), call.id, call.hasDeadline, call.deadlineNanos,
                        call.enqueuedNanos);
                wake = earlier(wake, now + wait);
            }
            return new Dispatch<>(start, failed, wake);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Asks the shared retry budget for one waiting retry off the lock (SPEC §4.8 stores may block),
     * then queues it if granted; a grant asks for a poll at once, to start it and try the next.
     */
    private Dispatch<A> commitBudgetAsk(Dispatch<A> d, CallState<A> call) {
        boolean granted;
        try {
            granted = Objects.requireNonNull(sharedBudget, "asked only with a shared budget")
                    .tryAcquireRetry(time.nanoTime());
        } catch (RuntimeException e) {
            // a store that fails must not let retries out unbudgeted: the call keeps waiting until its time
            System.getLogger("dev.sluice.client").log(System.Logger.Level.WARNING,
                    "the shared retry budget failed; the retry waits", e);
            granted = false;
        }
        lock.lock();
        try {
            long now = time.nanoTime();
            List<Dispatch.Rejection<A>> failed = new ArrayList<>(d.failed());
            OptionalLong wake = d.wakeAtNanos();
            if (call.phase == CallState.Phase.WAITING_FOR_BUDGET && call.askingBudget) {
                call.askingBudget = false;
                if (granted) {
                    budgetWaiters.remove(call);
                    grantRetry(call, now, failed);
                    wake = OptionalLong.of(now);
                } else {
                    call.budgetRefused = true;
                    if (!call.budgetWaits || now - call.budgetUntilNanos >= 0) {
                        budgetWaiters.remove(call);
                        failed.add(new Dispatch.Rejection<>(call, retryNotGranted(call)));
                    }
                }
            }
            return new Dispatch<>(d.start(), failed, wake);
        } finally {
            lock.unlock();
        }
    }

    private static OptionalLong earlier(OptionalLong wake, long at) {
        return wake.isEmpty() || at - wake.getAsLong() < 0 ? OptionalLong.of(at) : wake;
    }

    private long askSharedBucket(CallState<A> call) {
        try {
            return Objects.requireNonNull(sharedBucket, "asked only with a shared bucket")
                    .tryAcquire(call.reservedTake, time.nanoTime());
        } catch (IllegalArgumentException e) {
            return AdmissionQueue.Gate.REJECT;
        } catch (RuntimeException e) {
            // a store that fails (not one that says "wait") must not strand the reserved calls: let it
            // go, as a shared store's own fallback would (sluice-redis falls back to a local share)
            System.getLogger("dev.sluice.client").log(System.Logger.Level.WARNING,
                    "the shared token bucket failed; the call goes unpaced", e);
            return 0;
        }
    }

    /**
     * One poll under the lock; calls whose tokens the shared bucket must grant go to {@code reserved},
     * and a waiting retry the shared budget must grant to {@code budgetAsks}.
     */
    private Dispatch<A> pollLocked(List<CallState<A>> reserved, List<CallState<A>> budgetAsks) {
        long now = time.nanoTime();
        pacer.refresh(now);
        List<Dispatch.Rejection<A>> failed = new ArrayList<>(0); // no array until something fails
        if (!pending.isEmpty()) {
            failed.addAll(pending);
            pending.clear();
        }
        while (!retryTimers.isEmpty() && retryTimers.peek().retryAtNanos - now <= 0) {
            // a retry was granted by the attempt cap and the deadline when its answer came (SPEC
            // §4.2); one the budget must grant asks it now; the adaptive throttle decides about new
            // calls only (§4.5)
            CallState<A> call = retryTimers.poll();
            if (call.budgetRetry != null) {
                call.phase = CallState.Phase.WAITING_FOR_BUDGET;
                budgetWaiters.addFirst(call);
                continue;
            }
            SluiceException shed = enqueue(call, now);
            if (shed != null) {
                failed.add(new Dispatch.Rejection<>(call, shed));
            }
        }
        OptionalLong budgetWake = grantRetries(now, failed, budgetAsks);
        if (!pending.isEmpty()) {
            failed.addAll(pending);
            pending.clear();
        }
        AdmissionQueue.Poll<CallState<A>> poll = queue.poll(now, gate);
        List<CoreCall<A>> start = new ArrayList<>(poll.started().size());
        for (CallState<A> call : poll.started()) {
            if (sharedBucket != null) {
                call.phase = CallState.Phase.RESERVED;
                call.reservedTake = pacer.takeAmount(call.spec.cost());
                reserved.add(call);
            } else {
                start.add(startAttempt(call, now));
            }
        }
        for (AdmissionQueue.Removed<CallState<A>> r : poll.expired()) {
            counters.onShed(r.item().spec.host(), r.reason());
            failed.add(end(r.item(), new DeadlineExceededException("deadline passed while queued; never started",
                    ShedReason.DEADLINE_AT_DEQUEUE, r.item().attempts)));
        }
        for (CallState<A> call : poll.rejectedByGate()) {
            failed.add(end(call, Objects.requireNonNull(call.gateError, "set by the gate that refused it")));
        }
        OptionalLong wake = poll.wakeAtNanos();
        if (!retryTimers.isEmpty()) {
            wake = earlier(wake, retryTimers.peek().retryAtNanos);
        }
        if (budgetWake.isPresent()) {
            wake = earlier(wake, budgetWake.getAsLong());
        }
        return new Dispatch<>(start, failed, wake);
    }

    /**
     * The waiting retries, newest first: those whose time is up fail; the others ask the budget in
     * turn until it says no. A shared budget is asked for one of them, off the lock
     * ({@code budgetAsks}). Returns when to look again.
     */
    private OptionalLong grantRetries(long now, List<Dispatch.Rejection<A>> failed, List<CallState<A>> budgetAsks) {
        if (budgetWaiters.isEmpty()) {
            return OptionalLong.empty();
        }
        long nextExpiry = Long.MAX_VALUE;
        boolean asking = false;
        boolean budgetSaidNo = false;
        for (java.util.Iterator<CallState<A>> it = budgetWaiters.iterator(); it.hasNext(); ) {
            CallState<A> call = it.next();
            if (call.askingBudget) {
                asking = true;
                continue;
            }
            if (call.budgetWaits && now - call.budgetUntilNanos > 0) {
                call.budgetRefused |= budgetSaidNo;
                it.remove();
                failed.add(new Dispatch.Rejection<>(call, retryNotGranted(call)));
                continue;
            }
            if (call.budgetWaits) {
                nextExpiry = Math.min(nextExpiry, call.budgetUntilNanos - now);
            }
            if (budgetSaidNo) {
                call.budgetRefused = true; // no room for a newer one: none for this one either
            } else if (!asking) {
                if (sharedBudget != null) {
                    call.askingBudget = true;
                    budgetAsks.add(call);
                    asking = true;
                } else if (budget.tryAcquireRetry(now)) {
                    it.remove();
                    grantRetry(call, now, failed);
                } else {
                    call.budgetRefused = true;
                    budgetSaidNo = true;
                    if (!call.budgetWaits || now - call.budgetUntilNanos >= 0) {
                        it.remove();
                        failed.add(new Dispatch.Rejection<>(call, retryNotGranted(call)));
                    }
                }
            }
        }
        if (budgetWaiters.isEmpty()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(now + Math.min(BUDGET_RECHECK_NANOS, Math.max(1, nextExpiry)));
    }

    /** The budget granted a waiting retry: it is queued like any other. */
    private void grantRetry(CallState<A> call, long now, List<Dispatch.Rejection<A>> failed) {
        call.budgetRetry = null;
        call.budgetRefused = false;
        SluiceException shed = enqueue(call, now);
        if (shed != null) {
            failed.add(new Dispatch.Rejection<>(call, shed));
        }
    }

    /** A waiting retry's time is up: the answer's own error, the budget's refusal as its cause if it refused. */
    private SluiceException retryNotGranted(CallState<A> call) {
        Classification.Retryable r = Objects.requireNonNull(call.budgetRetry,
                "a call waits for the budget with its retry");
        call.budgetRetry = null;
        counters.retries.decrement(); // counted when scheduled; never granted after all
        if (call.budgetRefused || !call.budgetWaits) {
            return ((Decision.Fail) budgetRefused(call, r, call.budgetWaits
                    ? "not retried: the retry budget had no room before the call's deadline"
                    : "not retried, the retry budget is spent")).error();
        }
        return refuse(call, r.giveUp().apply("not retried before the call's deadline"));
    }

    /** A call's next attempt starts now: counted, recorded against its key and its host. */
    private CallState<A> startAttempt(CallState<A> call, long now) {
        call.attempts++;
        call.phase = CallState.Phase.IN_FLIGHT;
        call.startedNanos = now;
        if (call.idempotencyKey != null) {
            ledger.record(call.idempotencyKey, now);
        }
        String host = call.spec.host();
        profile(host).recordAttempt(now);
        Duration queued = Duration.ofNanos(Math.max(0, now - call.enqueuedNanos));
        call.waitedNanos += Math.max(0, now - call.idleSinceNanos);
        counters.onAttempt(call.event(), call.attempts);
        counters.onQueueWait(call.event(), queued);
        return call;
    }

    @Override
    public Decision onAnswer(CoreCall<A> handle, Answer answer) {
        CallState<A> call = state(handle);
        lock.lock();
        try {
            return onAnswerLocked(call, answer);
        } finally {
            lock.unlock();
        }
    }

    /** The answer, under the lock. */
    private Decision onAnswerLocked(CallState<A> call, Answer answer) {
        {
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
            if (!honouredByPacer(c, now)) {
                throttle.recordAnswer(now, c.accepted()); // on completion (R12)
            }
            call.idleSinceNanos = now;
            counters.onAttemptEnd(call.event(), call.attempts, outcome(answer, c),
                    answer instanceof Answer.Response r ? r.snapshot().status() : 0);
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
                    counters.onCallEnd(call.event(), call.attempts, call.waited(), null);
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
        }
    }

    /**
     * Whether the answer is a limit the pacer already honours, which the adaptive throttle then does
     * not count (SPEC §4.5 leaves the choice to the SDK): a 429 {@code rate_limited} with a wait (a
     * Retry-After or a reset) or under a known rate, and a spent quota. The pacer empties and pauses
     * its bucket for them, so the client already slows down to what the server stated; the throttle
     * exists for a backend short of capacity (503, timeouts), and counting a burst's 429s there too
     * is what locked a fresh client's next writes out for minutes.
     */
    private boolean honouredByPacer(Classification c, long now) {
        return switch (c) {
            case Classification.Retryable r when r.kind() == Classification.Kind.RATE_LIMITED ->
                    r.hint() != null || pacer.paces(now);
            case Classification.Terminal t -> t.error() instanceof QuotaExceededException;
            default -> false;
        };
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
            if (sharedBudget != null) {
                sharedBudget.countRetryLater(now); // counted when it has room; nobody waits for the answer
            } else {
                budget.tryAcquireRetry(now);
            }
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
            // the answer's own typed error, the refusal as its cause (SPEC §4.2)
            return fail(call, r.giveUp().apply("the Idempotency-Key's attempt cap is reached",
                    new RetryBudgetExhaustedException("Idempotency-Key " + call.idempotencyKey + " has used all "
                            + ledger.cap() + " attempts (SPEC §4.4)",
                            RetryBudgetExhaustedException.Scope.IDEMPOTENCY_KEY_ATTEMPTS, null, call.lastStatus,
                            call.lastSnapshot, call.attempts)));
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
        // a 429 rate_limited re-send under a known rate is a paced re-send: the emptied, paused bucket
        // holds it to the server's stated rate, so it cannot amplify, and the budget (which caps
        // amplification, SPEC §4.2) is not charged; the attempt cap, the key's cap and the deadline
        // still bound it. Without a known rate (no RateLimit policy, nothing documented) the bucket
        // would let every re-send out at the pause's end: those spend the budget like any retry.
        boolean paced = r.kind() == Classification.Kind.RATE_LIMITED && pacer.paces(now);
        if (!paced) {
            if (!call.hasDeadline || budgetNeverGrants()) {
                // without a deadline nobody said how long the answer stays useful: the budget decides now
                if (sharedBudget != null) {
                    // a shared budget is asked off the lock, once, when the wait is over: no waiting for room
                    call.budgetRetry = r;
                    call.budgetRefused = false;
                    call.budgetWaits = false;
                } else if (!budget.tryAcquireRetry(now)) {
                    return budgetRefused(call, r, "not retried, the retry budget is spent");
                }
            } else {
                // the budget is asked when the wait is over; a retry it has no room for then waits for
                // room until the deadline instead of failing at once: the retries sent still never pass
                // the budget's share of the traffic (SPEC §4.2, §8), but a short incident's calls are
                // retried when it is over, as far as the budget and their deadlines allow
                call.budgetRetry = r;
                call.budgetRefused = false;
                call.budgetWaits = true;
                call.budgetUntilNanos = now + latestNanos;
            }
        }
        return scheduleRetry(call, wait, hint != null, paced, now);
    }

    /** A budget configured to grant nothing (ratio and floor 0): a refusal is final, waiting is pointless. */
    private boolean budgetNeverGrants() {
        return sharedBudget == null && config.budget().ratio() == 0 && config.budget().minRetries() == 0;
    }

    /** The budget refused a retry: the answer's own error, the refusal as its cause (SPEC §4.2). */
    private Decision budgetRefused(CallState<A> call, Classification.Retryable r, String why) {
        String host = call.spec.host();
        counters.onBudgetExhausted(host, RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET);
        // the answer's own typed error (OverloadedException for a 503), the refusal as its cause:
        // the caller learns the server was overloaded, and why the SDK stopped (SPEC §4.2)
        return fail(call, r.giveUp().apply(why,
                new RetryBudgetExhaustedException("retry budget spent: retries over the last "
                        + config.budget().window().toSeconds() + " s reached "
                        + Math.round(config.budget().ratio() * 100) + " % of requests or the floor of "
                        + config.budget().minRetries() + ", whichever is more"
                        + (config.budget().spreads() ? ", or over the last "
                                + config.budget().spreadWindow().toMillis() + " ms" : "") + " (SPEC §4.2, §8)",
                        RetryBudgetExhaustedException.Scope.CLIENT_RETRY_BUDGET, null, call.lastStatus,
                        call.lastSnapshot, call.attempts)));
    }

    private Decision scheduleRetry(CallState<A> call, Duration wait, boolean hinted, boolean paced, long now) {
        String host = call.spec.host();
        call.phase = CallState.Phase.WAITING_TO_RETRY;
        call.retryAtNanos = now + wait.toNanos();
        retryTimers.add(call);
        if (paced) {
            counters.pacedRetries.increment();
        }
        counters.onRetryScheduled(call.event(), call.attempts + 1, wait, hinted ? WaitReason.HINT : WaitReason.JITTER);
        return new Decision.RetryAfter(wait);
    }

    @Override
    public void cancel(CoreCall<A> handle) {
        CallState<A> call = state(handle);
        lock.lock();
        try {
            switch (call.phase) {
                case OPENED -> {
                    // open() has not returned it yet: nothing to take back
                }
                case QUEUED -> queue.remove(call);
                case WAITING_TO_RETRY -> retryTimers.remove(call);
                case WAITING_FOR_BUDGET -> budgetWaiters.remove(call); // a budget answer on its way finds it done
                case RESERVED -> queue.release();
                case IN_FLIGHT -> {
                    queue.release();
                    if (queue.inFlight() == 0) {
                        pacer.nothingInFlight(time.nanoTime()); // no answer will end a hold
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
    private @Nullable SluiceException enqueue(CallState<A> call, long now) {
        AdmissionQueue.Admission<CallState<A>> a = queue.submit(call, call.spec.priority().level(), call.id,
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
                yield refuse(call, no.reason() == ShedReason.DEADLINE_AT_SUBMIT
                        ? new DeadlineExceededException("deadline passed or cannot be met; not queued",
                                ShedReason.DEADLINE_AT_SUBMIT, call.attempts)
                        : new ShedException("admission queue full (" + config.admission().maxQueue() + ")",
                                no.reason(), no.retryHint().isZero() ? null : no.retryHint(), call.attempts));
            }
        };
    }

    /** The pacer gate: a token just before the start (SPEC §4.6); refuse waits nobody can afford. */
    private long gate(CallState<A> call, long now) {
        long wait;
        try {
            // with a shared store, only what the pacer knows locally; the store is asked off the lock
            wait = sharedBucket != null ? pacer.beforeTake(call.spec.cost(), now) : pacer.tryAcquire(call.spec.cost(), now);
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
    private @Nullable SluiceException pacerRefusal(CallState<A> call, long waitNanos, long now,
            ShedReason deadlineReason) {
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

    /**
     * {@code QuotaExceededException} (counted) when a quota policy is why the pacer cannot grant a
     * token within the maximum wait: it is spent and pauses the bucket, or its last {@code r} are
     * spread over its reset so thinly that the next comes too late (SPEC §4.6); else {@code null}.
     */
    private @Nullable SluiceException spentQuotaError(CallState<A> call, long now) {
        Pacer.Block block = pacer.block(now);
        String message;
        if (block != null && block.kind() == PolicyKind.QUOTA) {
            message = "quota \"" + block.policy() + "\" is spent until " + block.resetAt()
                    + " (reported by an earlier response); not sent";
        } else {
            block = pacer.rationedBy(now);
            if (block == null) {
                return null;
            }
            message = "quota \"" + block.policy() + "\" is nearly spent: its last " + pacer.rationedRemaining(now)
                    + " are spread until its reset at " + block.resetAt() + ", and the next comes later than the"
                    + " maximum wait of " + config.retry().maxWait().toSeconds() + " s (SPEC §4.6); not sent";
        }
        counters.onQuotaExceeded(call.spec.host(), block.policy(), block.resetAt());
        return new QuotaExceededException(message, block.policy(), block.resetAt(),
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
        @Nullable Duration wait = null;
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
        return new Decision.Fail(refuse(call, error));
    }

    private Dispatch.Rejection<A> end(CallState<A> call, SluiceException error) {
        return new Dispatch.Rejection<>(call, refuse(call, error));
    }

    /** Ends a call with {@code error}: counted, and told to the listener. */
    private SluiceException refuse(CallState<A> call, SluiceException error) {
        call.phase = CallState.Phase.DONE;
        counters.errors.increment();
        counters.onCallEnd(call.event(), call.attempts, call.waited(), error);
        return error;
    }

    /** The listener's name for an answer. */
    private static AttemptOutcome outcome(Answer answer, Classification c) {
        if (answer instanceof Answer.Failure f) {
            return switch (f.kind()) {
                case NOT_SENT -> AttemptOutcome.NOT_SENT;
                case TIMEOUT -> AttemptOutcome.TIMEOUT;
                case CONNECTION_LOST -> AttemptOutcome.CONNECTION_LOST;
            };
        }
        if (c instanceof Classification.Terminal t && t.error() instanceof QuotaExceededException) {
            return AttemptOutcome.QUOTA_EXHAUSTED;
        }
        return switch (((Answer.Response) answer).snapshot().outcome()) {
            case OK -> AttemptOutcome.SUCCESS;
            case RATE_LIMITED -> AttemptOutcome.RATE_LIMITED;
            case QUOTA_EXHAUSTED -> AttemptOutcome.QUOTA_EXHAUSTED;
            case OVERLOADED -> AttemptOutcome.OVERLOADED;
            case CLIENT_ERROR -> AttemptOutcome.CLIENT_ERROR;
            case SERVER_ERROR -> AttemptOutcome.SERVER_ERROR;
        };
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
