package dev.sluice.delivery;

import dev.sluice.delivery.retry.RetryAfterHints;
import dev.sluice.delivery.retry.RetryDecision;
import dev.sluice.delivery.retry.RetryRules;
import dev.sluice.delivery.spi.AttemptStart;
import dev.sluice.delivery.spi.Claim;
import dev.sluice.delivery.spi.ClaimedStart;
import dev.sluice.delivery.spi.Completion;
import dev.sluice.delivery.spi.DeliveryListener;
import dev.sluice.delivery.spi.DeliveryStore;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.delivery.spi.WebhookRequest;
import dev.sluice.delivery.webhook.StandardWebhooks;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One worker: claims due deliveries from the store and attempts them (SPEC §6.2 – §6.7).
 *
 * <p>One attempt, in order: the ledger says delivered → suppressed (no token, no request); the
 * event's maximum age has run out → dead letter {@code expired}; take one token from the
 * destination's shared bucket (none → rescheduled to the next token, no request); POST with the
 * event's idempotency key and Standard Webhooks headers within the request timeout; classify and
 * record the outcome and the next scheduling in one transaction.
 *
 * <p>Two ways to run it: {@link #start()} runs a claiming thread, {@code concurrency} attempt
 * threads and a heartbeat that renews this worker's leases every lease/3; {@link #runOnce()}
 * claims once and attempts in the caller's thread (tests drive it with a fake clock). A worker
 * that dies leaves its rows in flight until their leases lapse; then any worker claims them again
 * and retries with the same key (an interrupted attempt to a destination that does not deduplicate
 * goes to review instead, since the receiver may have acted on it).
 *
 * <p>Thread-safe. Obtain one from {@link Delivery#newWorker()}.
 */
public final class DeliveryWorker implements AutoCloseable {

    private final Delivery delivery;
    private final DeliveryStore store;
    private final DeliveryConfig config;
    private final DeliveryListener listener;
    private final String id;

    /** How long a busy worker waits to batch claims: short against a request, long against a commit. */
    private static final long CLAIM_LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    /**
     * Rows claimed and started ahead of a free attempt thread ({@link #claimAhead}), so that a
     * thread that finishes an attempt takes the next at once instead of waiting for a claim's round
     * trip.
     */
    private final int ahead;
    /** One permit per row this worker may hold unsettled: {@code concurrency + ahead}. */
    private final Semaphore slots;
    /** Started rows waiting for an attempt thread, in claim order (the attempt pool's queue). */
    private final BlockingQueue<Runnable> ready = new LinkedBlockingQueue<>();
    private final Semaphore wakeups = new Semaphore(0);
    private final AtomicInteger attemptsInFlight = new AtomicInteger();
    private volatile boolean running;
    private Thread poller;
    private ExecutorService attempts;
    private ScheduledExecutorService timers;

    DeliveryWorker(Delivery delivery, String id) {
        this.delivery = delivery;
        this.store = delivery.store();
        this.config = delivery.config();
        this.listener = delivery.listener();
        this.id = id;
        this.ahead = claimAhead(config);
        this.slots = new Semaphore(config.concurrency() + ahead);
    }

    /**
     * How many started rows may wait for an attempt thread: {@code concurrency} when the lease is at
     * least three request timeouts, else none. A waiting row is behind at most one attempt per
     * thread, so it starts within one request timeout and ends within two; the third leaves room
     * for the completion's commit, and the heartbeat renews the lease of waiting rows as well. The
     * trade: a waiting row's token was taken when it was claimed, up to one request timeout before
     * its request, so a destination can see up to {@code ahead} requests a little later than their
     * tokens (never more tokens than its rate grants); and a worker that crashes leaves its waiting
     * rows marked as sending, so they count as interrupted attempts (a retry with the same key, or
     * review for a destination that cannot deduplicate, SPEC §6.4). A graceful {@link #close()}
     * puts them back untouched.
     */
    static int claimAhead(DeliveryConfig config) {
        return config.lease().compareTo(config.requestTimeout().multipliedBy(3)) >= 0 ? config.concurrency() : 0;
    }

    /** This worker's id: the lease owner written on the rows it claims. */
    public String id() {
        return id;
    }

    /**
     * Claims up to {@code concurrency} due rows and attempts each in the calling thread.
     *
     * @return how many rows were claimed
     * @throws StoreException if the store fails while claiming
     */
    public int runOnce() {
        List<Claim> claims = store.claim(id, config.concurrency(), delivery.now(), config.lease());
        for (Claim c : claims) {
            process(c);
        }
        return claims.size();
    }

    /** Renews this worker's leases once (the heartbeat). */
    public int heartbeatOnce() {
        return store.heartbeat(id, delivery.now().plus(config.lease()));
    }

    /**
     * Starts the claiming thread, the attempt threads and the heartbeat.
     *
     * @throws IllegalStateException if already started
     */
    public synchronized DeliveryWorker start() {
        if (running || poller != null) {
            throw new IllegalStateException("worker " + id + " was started already");
        }
        running = true;
        attempts = new ThreadPoolExecutor(config.concurrency(), config.concurrency(), 0, TimeUnit.MILLISECONDS, ready,
                r -> {
                    Thread t = new Thread(r, "sluice-delivery-attempt-" + id);
                    t.setDaemon(true);
                    return t;
                });
        timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-delivery-timers-" + id);
            t.setDaemon(true);
            return t;
        });
        long beat = config.heartbeatInterval().toMillis();
        timers.scheduleAtFixedRate(this::heartbeatQuietly, beat, beat, TimeUnit.MILLISECONDS);
        long depth = config.queueDepthInterval().toMillis();
        timers.scheduleAtFixedRate(this::reportDepthQuietly, 0, depth, TimeUnit.MILLISECONDS);
        if (config.alignClockWithStore()) {
            timers.scheduleAtFixedRate(delivery::realignClockQuietly, 60, 60, TimeUnit.SECONDS);
        }
        poller = new Thread(this::pollLoop, "sluice-delivery-poller-" + id);
        poller.setDaemon(true);
        poller.start();
        return this;
    }

    /** Makes an idle worker look for due work now (an in-process enqueue calls this). */
    public void wake() {
        wakeups.release();
    }

    /** Attempts running right now. */
    public int attemptsInFlight() {
        return attemptsInFlight.get();
    }

    private void pollLoop() {
        while (running) {
            try {
                slots.acquire();
                int free = 1 + gatherSlots();
                Instant now = delivery.now();
                List<ClaimedStart> batch;
                try {
                    batch = running ? store.claimAndStart(id, free, now, config.lease()) : List.of();
                } catch (RuntimeException e) {
                    slots.release(free); // rolled back: nothing claimed, no token taken
                    throw e;
                }
                slots.release(free - batch.size());
                dispatch(batch, now);
                if (batch.isEmpty()) {
                    idleWait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                delivery.reportError("worker " + id + ": claiming failed", e);
                try {
                    wakeups.tryAcquire(config.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * Settles a claimed and started batch, each claim holding one slot: claims that needed no
     * token are settled here, started ones go to the attempt threads when a token was taken
     * ({@link AttemptStart.Proceed}) and are settled here otherwise. A slot is released when its
     * claim is settled.
     */
    private void dispatch(List<ClaimedStart> batch, Instant now) {
        for (ClaimedStart cs : batch) {
            Claim c = cs.claim();
            if (cs.start().isEmpty()) {
                try {
                    settledBeforeStart(c, now);
                } catch (RuntimeException e) {
                    delivery.reportError("worker " + id + ": an attempt failed", e); // the lease lapses; retried
                } finally {
                    slots.release();
                }
                continue;
            }
            AttemptStart start = cs.start().get();
            listener.onClaimed(c.destination().name(), Duration.between(now, c.eligibleAt()));
            if (start instanceof AttemptStart.Proceed) {
                attempts.execute(new StartedAttempt(c, start));
            } else {
                attemptReleasingSlot(c, start, now); // no request: settle it here
            }
        }
    }

    /** A started claim on its way to an attempt thread; it may wait in {@link #ready} first. */
    private final class StartedAttempt implements Runnable {
        private final Claim claim;
        private final AttemptStart start;

        StartedAttempt(Claim claim, AttemptStart start) {
            this.claim = claim;
            this.start = start;
        }

        @Override
        public void run() {
            attemptsInFlight.incrementAndGet();
            try {
                // the request is signed and timed when it is sent, not when it was claimed
                attemptReleasingSlot(claim, start, delivery.now());
            } finally {
                attemptsInFlight.decrementAndGet();
            }
        }
    }

    private void attemptReleasingSlot(Claim c, AttemptStart start, Instant now) {
        CompletableFuture<Void> recorded = null;
        try {
            // a delivery's commit is waited for by its slot, not by this thread (§6.4: the claim is
            // done, and its slot free for the next claim, only once the outcome is committed)
            recorded = attempt(c, start, now, true);
        } catch (RuntimeException e) {
            // the row stays in flight; its lease lapses and it is retried
            delivery.reportError("worker " + id + ": an attempt failed", e);
        } finally {
            if (recorded == null) {
                slots.release();
            }
        }
        if (recorded != null) {
            recorded.whenComplete((ok, e) -> {
                if (e != null) {
                    delivery.reportError("worker " + id + ": an attempt failed", e); // the lease lapses; retried
                }
                slots.release();
            });
        }
    }

    /**
     * Takes more free slots, waiting up to {@link #CLAIM_LINGER_NANOS} for half of them, so
     * that a busy worker claims rows in batches (one transaction each) rather than one by one as
     * single slots free up: a claim takes every free slot, up to {@code concurrency + ahead}.
     * Returns the number taken besides the one already held.
     */
    private int gatherSlots() throws InterruptedException {
        int want = Math.max(1, (config.concurrency() + ahead) / 2) - 1;
        int got = slots.drainPermits();
        long deadline = delivery.nanoTime() + CLAIM_LINGER_NANOS;
        while (got < want) { // each pass takes a permit or stops, so it ends even on a frozen test clock
            long left = deadline - delivery.nanoTime();
            if (left <= 0 || !slots.tryAcquire(left, TimeUnit.NANOSECONDS)) {
                break;
            }
            got += 1 + slots.drainPermits();
        }
        return got;
    }

    /** Sleeps until the next row becomes claimable, at most the poll interval, or until woken. */
    private void idleWait() throws InterruptedException {
        long maxMillis = config.pollInterval().toMillis();
        long millis = maxMillis;
        Optional<Instant> next = store.nextVisibleAt();
        if (next.isPresent()) {
            long until = Duration.between(delivery.now(), next.get()).toMillis();
            // rows due but not claimed are locked by another replica's claim for a moment
            millis = Math.max(20L, Math.min(maxMillis, until + 1));
        }
        wakeups.tryAcquire(millis, TimeUnit.MILLISECONDS);
        wakeups.drainPermits();
    }

    private void heartbeatQuietly() {
        try {
            heartbeatOnce();
        } catch (RuntimeException e) {
            delivery.reportError("worker " + id + ": the heartbeat failed", e);
        }
    }

    private void reportDepthQuietly() {
        try {
            listener.onQueueDepth(store.status(delivery.now()));
        } catch (RuntimeException e) {
            delivery.reportError("worker " + id + ": reading the queue depth failed", e);
        }
    }

    /** One claimed row, start to finish (SPEC §6.2), in the calling thread. */
    void process(Claim claim) {
        Instant now = delivery.now();
        if (!settledBeforeStart(claim, now)) {
            attempt(claim, store.startAttempt(claim, now), now);
        }
    }

    /**
     * The checks before a token: an interrupted attempt to a destination that cannot deduplicate
     * goes to review, an event past its maximum age is dead-lettered.
     *
     * @return whether the claim was settled (no token to take)
     */
    private boolean settledBeforeStart(Claim claim, Instant now) {
        listener.onClaimed(claim.destination().name(), Duration.between(now, claim.eligibleAt()));
        if (claim.takesToken(now)) {
            return false;
        }
        if (claim.interruptedAttempt() && !claim.destination().idempotent()) {
            // The last holder may have sent it, and only a person can tell whether it arrived. Checked
            // before the maximum age: an 'expired' dead letter invites a replay that could act twice.
            finish(claim, new Completion.Review(claim.lastClass(), claim.lastStatus(),
                    "an attempt was interrupted (worker crash or lost lease) after taking its token;"
                            + " the receiver may have acted on it", now, true));
            return true;
        }
        finish(claim, new Completion.Dead(DeadLetterReason.EXPIRED, null, null,
                "maximum age of '" + claim.event().type() + "' reached before delivery",
                delivery.redact(claim.event()), now, false, false));
        return true;
    }

    /** What follows the start: the request when a token was taken, else what the start said. */
    private void attempt(Claim claim, AttemptStart start, Instant now) {
        CompletableFuture<Void> recorded = attempt(claim, start, now, false);
        if (recorded != null) {
            recorded.join();
        }
    }

    /**
     * {@link #attempt(Claim, AttemptStart, Instant)}; with {@code deliveryLater}, a 2xx's completion
     * is only queued for its commit ({@link DeliveryStore#finishLater}) and this returns at once
     * with the commit's future, so that the attempt thread goes on to the next row while the
     * completion waits for its group. The claim is not done before that future completes.
     *
     * @return the pending commit of a delivery, or {@code null} when everything is recorded
     */
    private CompletableFuture<Void> attempt(Claim claim, AttemptStart start, Instant now, boolean deliveryLater) {
        String dest = claim.destination().name();
        String key = claim.event().idempotencyKey();
        switch (start) {
            case AttemptStart.Suppressed s -> {
                listener.onSuppressed(dest, key);
                return null;
            }
            case AttemptStart.LeaseLost l -> {
                listener.onLeaseLost(dest, key);
                return null;
            }
            case AttemptStart.DestinationDisabled d -> {
                finish(claim, new Completion.Dead(DeadLetterReason.DESTINATION_DISABLED, null, null,
                        "destination '" + dest + "' is disabled", delivery.redact(claim.event()), now, false, false));
                return null;
            }
            case AttemptStart.NoToken n -> {
                listener.onTokenWait(dest, n.delay());
                listener.onScheduled(dest, null, n.delay());
                return null;
            }
            case AttemptStart.Proceed p -> listener.onTokenWait(dest, Duration.ZERO);
        }

        WebhookRequest request = StandardWebhooks.request(claim.event(), claim.destination(), now);
        TransportResult result = delivery.transport().send(request, config.requestTimeout());
        Instant after = delivery.now();
        ResponseClass cls = RetryRules.classOf(result);
        Integer status = result instanceof TransportResult.Answered a ? a.status() : null;
        listener.onResponse(dest, cls, status, result.latency());

        Optional<Duration> retryAfter = result instanceof TransportResult.Answered a
                ? RetryAfterHints.valid(a.headers(), after) : Optional.empty();
        int attempt = claim.attempts() + 1;
        RetryDecision decision = RetryRules.decide(result, attempt, claim.destination().idempotent(), retryAfter,
                after, claim.expiresAt(), config.maxRetryAfter(), delivery.random());
        String error = describe(result);
        if (retryAfter.isPresent() && RetryRules.honoured(retryAfter, config.maxRetryAfter()).isEmpty()) {
            error += "; Retry-After " + retryAfter.get().toSeconds() + " s is beyond max-retry-after "
                    + dev.sluice.config.Durations.format(config.maxRetryAfter()) + ": ignored, backoff applied";
        }
        switch (decision) {
            case RetryDecision.Deliver d -> {
                Completion.Delivered delivered = new Completion.Delivered(status, after);
                if (deliveryLater) {
                    return store.finishLater(claim, delivered).thenAccept(applied -> {
                        if (applied) {
                            listener.onDelivered(dest, key, attempt);
                        } else {
                            listener.onLeaseLost(dest, key);
                        }
                    });
                }
                if (finish(claim, delivered)) {
                    listener.onDelivered(dest, key, attempt);
                }
            }
            case RetryDecision.RetryAt r -> {
                if (finish(claim, new Completion.Retry(cls, status, error, r.eligibleAt(), after, true))) {
                    listener.onScheduled(dest, cls, r.delay());
                }
            }
            case RetryDecision.Review r -> finish(claim, new Completion.Review(cls, status, error, after, true));
            case RetryDecision.DeadLetter dl -> finish(claim, new Completion.Dead(dl.reason(), cls, status,
                    switch (dl.reason()) {
                        case EXPIRED -> error + "; the next attempt would fall after the maximum age";
                        case RETRY_AFTER_BEYOND_MAX_AGE -> error + "; the Retry-After ends after the maximum age";
                        default -> error;
                    },
                    delivery.redact(claim.event()), after, true, dl.reason() == DeadLetterReason.DESTINATION_GONE));
        }
        return null;
    }

    /** Records a completion and reports it; a completion the lease no longer allows is dropped. */
    private boolean finish(Claim claim, Completion completion) {
        boolean applied = store.finish(claim, completion);
        String dest = claim.destination().name();
        String key = claim.event().idempotencyKey();
        if (!applied) {
            listener.onLeaseLost(dest, key);
            return false;
        }
        switch (completion) {
            case Completion.Dead d -> listener.onDeadLetter(dest, d.reason());
            case Completion.Review r -> listener.onReview(dest, key);
            default -> {
            }
        }
        return true;
    }

    private static String describe(TransportResult result) {
        return switch (result) {
            case TransportResult.Answered a -> "HTTP " + a.status()
                    + a.headers().first("Retry-After").map(v -> " (Retry-After: " + v + ")").orElse("");
            case TransportResult.Failed f -> f.error();
        };
    }

    /** Puts back the started rows no attempt thread has taken yet (a task a thread took meanwhile runs). */
    private void putBackWaiting() {
        List<Runnable> waiting = new ArrayList<>();
        ready.drainTo(waiting);
        if (waiting.isEmpty()) {
            return;
        }
        List<Claim> unsent = new ArrayList<>(waiting.size());
        for (Runnable r : waiting) {
            unsent.add(((StartedAttempt) r).claim);
        }
        try {
            store.putBack(unsent, delivery.now());
        } catch (RuntimeException e) {
            // their leases lapse; the next holder sees interrupted attempts (SPEC §6.4)
            delivery.reportError("worker " + id + ": putting back rows started ahead failed", e);
        } finally {
            slots.release(waiting.size());
        }
    }

    /**
     * Stops claiming, lets attempts in flight finish (up to the request timeout plus 2 s), puts
     * back rows claimed but not started and rows started ahead that no thread reached
     * ({@link DeliveryStore#putBack}), and stops the heartbeat. Rows whose attempt could not
     * finish stay in flight until their lease lapses. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (!running) {
            return;
        }
        running = false;
        wakeups.release();
        poller.interrupt(); // it may be waiting for a free slot
        try {
            poller.join(config.pollInterval().toMillis() + 5_000);
            putBackWaiting();
            attempts.shutdown();
            if (!attempts.awaitTermination(config.requestTimeout().toMillis() + 2_000, TimeUnit.MILLISECONDS)) {
                attempts.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            attempts.shutdownNow();
        } finally {
            timers.shutdownNow();
            try {
                store.release(id, delivery.now());
            } catch (RuntimeException e) {
                delivery.reportError("worker " + id + ": putting back unstarted claims failed", e);
            }
            delivery.forget(this);
        }
    }
}
