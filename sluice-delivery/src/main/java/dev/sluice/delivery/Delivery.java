package dev.sluice.delivery;

import dev.sluice.delivery.internal.AlignedClock;
import dev.sluice.delivery.internal.RateLimitedLog;
import dev.sluice.delivery.internal.SafeListener;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.redaction.JsonRedactor;
import dev.sluice.delivery.spi.DeliveryListener;
import dev.sluice.delivery.spi.DeliveryStore;
import dev.sluice.delivery.spi.WebhookTransport;
import dev.sluice.delivery.webhook.JdkWebhookTransport;
import dev.sluice.time.TimeSource;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.random.RandomGenerator;

/**
 * The delivery worker's entry point (SPEC §6): enqueue events durably, run workers, inspect and
 * repair (dead letters, replay, review).
 *
 * <pre>{@code
 * try (JdbcDeliveryStore store = JdbcDeliveryStore.open("sqlite:./sluice-delivery.db");
 *      Delivery delivery = Delivery.builder(store).build()) {
 *     delivery.registerDestination(new Destination("merchant-a", URI.create("https://a.example/hooks"),
 *             new Rate(10, 20), "whsec_...", true));
 *     delivery.enqueue(NewEvent.of("merchant-a", "purchase.completed", "{\"order\":991}")
 *             .withIdempotencyKey("game-8472:purchase:991"));
 *     delivery.newWorker().start();
 * }
 * }</pre>
 *
 * <p>Thread-safe. Closing it stops the workers it made and the transport it created; the store
 * stays open (its owner closes it).
 */
public final class Delivery implements AutoCloseable {

    private final DeliveryStore store;
    private final DeliveryConfig config;
    private final AlignedClock clock;
    private final RandomGenerator random;
    private final DeliveryListener listener;
    private final RateLimitedLog errorLog;
    private final WebhookTransport transport;
    private final boolean ownsTransport;
    private final JsonRedactor redactor;
    private final List<DeliveryWorker> workers = new CopyOnWriteArrayList<>();

    private Delivery(Builder b) {
        this.store = b.store;
        this.config = b.config;
        this.clock = new AlignedClock(b.time);
        this.random = new LockedRandom(b.random);
        this.errorLog = new RateLimitedLog(b.logger, ERROR_LOG_INTERVAL, b.time::nanoTime);
        this.listener = new SafeListener(b.listener, new RateLimitedLog(b.logger, ERROR_LOG_INTERVAL, b.time::nanoTime));
        this.ownsTransport = b.transport == null;
        this.transport = b.transport != null ? b.transport : new JdkWebhookTransport(config.requestTimeout(), b.time);
        this.redactor = JsonRedactor.of(config.redactPaths());
        if (config.alignClockWithStore()) {
            clock.align(store);
        }
    }

    /** A builder over {@code store}. */
    public static Builder builder(DeliveryStore store) {
        return new Builder(store);
    }

    // ---------------------------------------------------------------------------------------------
    // destinations

    /**
     * Registers or updates a destination (URL, rate, secret, idempotent); its bucket state and
     * enabled flag are kept.
     *
     * @throws StoreException if the store fails
     */
    public void registerDestination(Destination destination) {
        store.upsertDestination(destination, now());
    }

    /**
     * Re-enables a destination disabled by a 410.
     *
     * @return {@code false} when there is no such destination
     */
    public boolean enableDestination(String name) {
        return store.enableDestination(name, now());
    }

    /** Every destination with its enabled flag. */
    public List<DestinationState> destinations() {
        return store.destinations();
    }

    // ---------------------------------------------------------------------------------------------
    // outbox

    /**
     * Writes the event and its ledger row in one transaction (the outbox, SPEC §6.4), filling in
     * a generated event id and key when absent (§6.1). The same key for the same destination is
     * stored once; see {@link EnqueueResult.Outcome}. Wakes this process's idle workers.
     *
     * @throws InvalidEventException if the key, id or type is malformed
     * @throws UnknownDestinationException if the destination is not registered
     * @throws StoreException if the store fails (nothing was written)
     */
    public EnqueueResult enqueue(NewEvent event) {
        Event e = complete(event);
        EnqueueResult r = store.enqueue(e, e.createdAt().plus(config.maxAge(e.type())));
        afterEnqueue(r);
        return r;
    }

    /**
     * The outbox write on the caller's own JDBC connection, inside the caller's transaction: the
     * event commits or rolls back with the caller's business write. Neither commits nor rolls
     * back. Workers in this process are woken; commit first, or they find nothing yet and pick the
     * event up at their next poll.
     *
     * @throws UnsupportedOperationException if the store is not a {@link JdbcDeliveryStore}
     * @throws InvalidEventException if the key, id or type is malformed
     * @throws UnknownDestinationException if the destination is not registered
     * @throws StoreException if a statement fails (roll back)
     */
    public EnqueueResult enqueue(Connection connection, NewEvent event) {
        if (!(store instanceof JdbcDeliveryStore jdbc)) {
            throw new UnsupportedOperationException("enqueue on a caller's connection needs a JdbcDeliveryStore");
        }
        Event e = complete(event);
        EnqueueResult r = jdbc.enqueue(connection, e, e.createdAt().plus(config.maxAge(e.type())));
        afterEnqueue(r);
        return r;
    }

    private Event complete(NewEvent n) {
        String id = n.eventId() != null ? n.eventId() : "evt_" + HexFormat.of().formatHex(uuidBytes());
        String key = n.idempotencyKey() != null ? n.idempotencyKey() : id;
        return new Event(id, n.destination(), n.type(), key, n.payload(), now());
    }

    private static byte[] uuidBytes() {
        UUID u = UUID.randomUUID();
        byte[] b = new byte[16];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (u.getMostSignificantBits() >>> (56 - 8 * i));
            b[8 + i] = (byte) (u.getLeastSignificantBits() >>> (56 - 8 * i));
        }
        return b;
    }

    private void afterEnqueue(EnqueueResult r) {
        if (r.outcome() == EnqueueResult.Outcome.SUPPRESSED_DELIVERED) {
            listener.onSuppressed(r.event().destination(), r.event().idempotencyKey());
        }
        if (r.outcome() == EnqueueResult.Outcome.ENQUEUED) {
            workers.forEach(DeliveryWorker::wake);
        }
    }

    // ---------------------------------------------------------------------------------------------
    // workers

    /** A new worker with a unique id; call {@link DeliveryWorker#start()} or {@link DeliveryWorker#runOnce()}. */
    public DeliveryWorker newWorker() {
        String id = "w-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(uuidBytes()).substring(0, 8);
        DeliveryWorker w = new DeliveryWorker(this, id);
        workers.add(w);
        return w;
    }

    void forget(DeliveryWorker w) {
        workers.remove(w);
    }

    // ---------------------------------------------------------------------------------------------
    // inspection and repair

    /** The ledger row, or empty. */
    public Optional<LedgerEntry> entry(long ledgerId) {
        return store.entry(ledgerId);
    }

    /** The ledger row of a destination's key, or empty. */
    public Optional<LedgerEntry> entry(String destination, String idempotencyKey) {
        return store.entry(destination, idempotencyKey);
    }

    /** Up to {@code limit} rows waiting for a person, oldest first. */
    public List<LedgerEntry> reviews(int limit) {
        return store.entries(LedgerState.REVIEW, limit);
    }

    /**
     * Resolves a review item: {@link ReviewResolution#RETRY} sends it again now with the same key
     * and a fresh maximum age.
     *
     * @throws NoSuchEntryException if there is no such row
     * @throws ReplayRefusedException if the row is not in review
     */
    public LedgerEntry resolveReview(long ledgerId, ReviewResolution resolution) {
        LedgerEntry e = store.entry(ledgerId).orElseThrow(() -> new NoSuchEntryException("no ledger row " + ledgerId));
        Instant now = now();
        LedgerEntry r = store.resolveReview(ledgerId, resolution, now, now.plus(config.maxAge(e.event().type())),
                redact(e.event()));
        if (resolution == ReviewResolution.RETRY) {
            workers.forEach(DeliveryWorker::wake);
        }
        return r;
    }

    /** Up to {@code limit} dead letters, newest first. */
    public List<DeadLetter> deadLetters(int limit) {
        return store.deadLetters(limit);
    }

    /** One dead letter, or empty. */
    public Optional<DeadLetter> deadLetter(long id) {
        return store.deadLetter(id);
    }

    /**
     * Re-enqueues a dead letter with its ORIGINAL event and idempotency key (SPEC §6.6), eligible
     * now, with a fresh attempt count and maximum age.
     *
     * @throws NoSuchEntryException if there is no such dead letter
     * @throws ReplayRefusedException if the key was delivered since (a replay could only act
     *     twice), is queued or in review already, or the destination is disabled
     */
    public LedgerEntry replay(long deadLetterId) {
        DeadLetter dl = store.deadLetter(deadLetterId)
                .orElseThrow(() -> new NoSuchEntryException("no dead letter " + deadLetterId));
        Instant now = now();
        LedgerEntry r = store.replay(deadLetterId, now, now.plus(config.maxAge(dl.eventType())));
        workers.forEach(DeliveryWorker::wake);
        return r;
    }

    /** Counts by state and dead letters by reason. */
    public DeliveryStatus status() {
        return store.status(now());
    }

    // ---------------------------------------------------------------------------------------------
    // for the worker

    /** The current time: the injected clock, aligned with the store's when configured. */
    public Instant now() {
        return clock.now();
    }

    /** The monotonic clock, for waits. */
    long nanoTime() {
        return clock.nanoTime();
    }

    void realignClockQuietly() {
        try {
            clock.align(store);
        } catch (RuntimeException e) {
            reportError("aligning the clock with the store failed", e);
        }
    }

    /**
     * A worker's failure that it rides out (usually the store): passed to the listener and logged
     * as a WARN with its stack trace, at most one line per {@link #ERROR_LOG_INTERVAL}.
     */
    void reportError(String what, Throwable error) {
        listener.onError(error);
        errorLog.warn("sluice delivery: " + what + ": " + error.getMessage() + "; the worker keeps trying", error);
    }

    String redact(Event e) {
        return redactor.redact(e.payload()).orElse(null);
    }

    DeliveryStore store() {
        return store;
    }

    DeliveryConfig config() {
        return config;
    }

    DeliveryListener listener() {
        return listener;
    }

    WebhookTransport transport() {
        return transport;
    }

    RandomGenerator random() {
        return random;
    }

    /** Stops every worker made here and closes the transport this object created. */
    @Override
    public void close() {
        for (DeliveryWorker w : List.copyOf(workers)) {
            w.close();
        }
        if (ownsTransport) {
            transport.close();
        }
    }

    /**
     * Serialises a random generator for the worker's threads. Every {@link RandomGenerator}
     * method derives from {@code nextLong()}, so guarding that one is enough.
     */
    private static final class LockedRandom implements RandomGenerator {
        private final RandomGenerator delegate;

        LockedRandom(RandomGenerator delegate) {
            this.delegate = delegate;
        }

        @Override
        public synchronized long nextLong() {
            return delegate.nextLong();
        }
    }

    /** The shortest interval between two WARN lines about the same kind of failure. */
    static final Duration ERROR_LOG_INTERVAL = Duration.ofSeconds(30);

    /** Not thread-safe. */
    public static final class Builder {
        private final DeliveryStore store;
        private DeliveryConfig config = DeliveryConfig.defaults();
        private TimeSource time = TimeSource.system();
        private RandomGenerator random;
        private DeliveryListener listener = DeliveryListener.NONE;
        private System.Logger logger = System.getLogger("dev.sluice.delivery");
        private WebhookTransport transport;

        private Builder(DeliveryStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        public Builder config(DeliveryConfig c) {
            config = Objects.requireNonNull(c, "config");
            return this;
        }

        /** The clock (default {@link TimeSource#system()}); tests pass a {@code ManualTimeSource}. */
        public Builder time(TimeSource t) {
            time = Objects.requireNonNull(t, "time");
            return this;
        }

        /** The jitter source (default: a new {@code L64X128MixRandom}); tests pass a seeded one. */
        public Builder random(RandomGenerator r) {
            random = Objects.requireNonNull(r, "random");
            return this;
        }

        /** Where failures are logged; tests capture it. */
        Builder logger(System.Logger l) {
            logger = Objects.requireNonNull(l, "logger");
            return this;
        }

        /**
         * Receives measurements and errors (default {@link DeliveryListener#NONE}). Whatever it is,
         * failures the worker rides out are also logged at WARN (logger {@code dev.sluice.delivery},
         * at most one line per 30 s, with the stack trace).
         */
        public Builder listener(DeliveryListener l) {
            listener = Objects.requireNonNull(l, "listener");
            return this;
        }

        /** The transport (default: {@link JdkWebhookTransport}). */
        public Builder transport(WebhookTransport t) {
            transport = Objects.requireNonNull(t, "transport");
            return this;
        }

        /**
         * @throws IllegalArgumentException if a redaction path is malformed
         * @throws StoreException if aligning the clock with the store fails
         */
        public Delivery build() {
            if (random == null) {
                random = RandomGenerator.of("L64X128MixRandom");
            }
            return new Delivery(this);
        }
    }
}
