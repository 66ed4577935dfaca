package dev.sluice.cli.edge;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.config.ConfigNode;
import dev.sluice.config.ConfigProblems;
import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.NewEvent;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.edge.keys.KeyAdministration;
import dev.sluice.edge.softlimit.LoggingQuotaWarningSink;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.edge.softlimit.QuotaWarningSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link QuotaWarningSink} that hands each {@code quota.warning} (SPEC §3.8) to the delivery worker: the
 * event is written to the worker's outbox (SQLite or PostgreSQL) with the idempotency key
 * {@code quota-warning:<key id>:<policy>:<window end, epoch s>}, so however often the edge proposes it (a
 * restart forgets which warnings it sent) the merchant's endpoint gets it once in effect, signed (Standard
 * Webhooks), retried and dead-lettered like any other event. {@code sluice deliver run} on the same store
 * sends it.
 *
 * <p>The destination is the key's own ({@code warning_destination} in the key store), else its plan's
 * ({@code quota-warnings.plans}), else {@code quota-warnings.destination}; a warning with none is only logged.
 * The event loop never waits: {@link #onQuotaWarning} puts the event on a bounded queue and one thread of
 * this sink writes it. A full queue, a store that is down or a destination the worker does not know costs
 * a counted ({@code sluice_quota_warnings_dropped}), logged drop. Every warning is also logged as before.
 *
 * <pre>{@code
 * quota-warnings:
 *   store: sqlite:./sluice-delivery.db     # the delivery worker's store, or jdbc:postgresql://…
 *   schema: sluice                         # PostgreSQL only, optional
 *   destination: merchant-ops              # default destination (a name from the delivery file)
 *   plans: { pro: merchant-pro }           # per plan
 *   queue: 10000                           # most warnings waiting to be written
 * }</pre>
 */
public final class QuotaWarningDelivery implements QuotaWarningSink, MeterBinder, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger("dev.sluice.edge.quota");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FIELDS = new LinkedHashSet<>(List.of("store", "schema", "destination", "plans",
            "queue"));
    /** The delivery event type (SPEC §3.8). */
    public static final String TYPE = QuotaWarning.TYPE;

    /**
     * The section.
     *
     * @param store the delivery store location
     * @param schema the PostgreSQL schema, if any
     * @param destination the default destination, if any
     * @param plans destination per plan name
     * @param queue the queue bound
     */
    public record Config(String store, Optional<String> schema, Optional<String> destination,
            Map<String, String> plans, int queue) {
        public Config {
            Objects.requireNonNull(store, "store");
            plans = Map.copyOf(plans);
        }

        /** Reads a {@code quota-warnings} section; empty (with problems added) when it has errors. */
        public static Optional<Config> read(ConfigNode node, ConfigProblems problems) {
            if (!node.expectMapping(problems, "store, destination, plans")) {
                return Optional.empty();
            }
            int before = problems.list().size();
            node.rejectUnknownFields(problems, FIELDS);
            Optional<String> store = node.get("store").flatMap(n -> n.asText(problems));
            if (node.get("store").isEmpty()) {
                problems.add(node, "store: required (the delivery worker's store: sqlite:PATH or jdbc:postgresql://…)");
            }
            Optional<String> schema = node.get("schema").flatMap(n -> n.asText(problems));
            Optional<String> destination = node.get("destination").flatMap(n -> n.asText(problems));
            Map<String, String> plans = new LinkedHashMap<>();
            node.get("plans").ifPresent(p -> {
                if (p.expectMapping(problems, "plan name to destination name")) {
                    p.fields().forEach((plan, d) -> d.asText(problems).ifPresent(v -> plans.put(plan, v)));
                }
            });
            int queue = (int) node.get("queue").map(n -> n.asLong(problems, 1, 1_000_000))
                    .orElse(java.util.OptionalLong.of(10_000)).orElse(10_000);
            if (problems.list().size() != before || store.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(new Config(store.get(), schema, destination, plans, queue));
        }
    }

    private final Delivery delivery;
    private final JdbcDeliveryStore store;
    private final Config config;
    private final Optional<KeyAdministration> keys;
    private final LoggingQuotaWarningSink log = new LoggingQuotaWarningSink();
    private final BlockingQueue<QuotaWarning> queue;
    private final Thread writer;
    private volatile boolean running = true;
    private final AtomicLong enqueued = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong noDestination = new AtomicLong();
    private long lastDropLogNanos;

    /**
     * @param keys the key store, for a key's own destination; empty when keys are in the file only
     */
    public QuotaWarningDelivery(Config config, Optional<KeyAdministration> keys) {
        this.config = config;
        this.keys = keys;
        JdbcDeliveryStore.Options options = JdbcDeliveryStore.Options.defaults();
        if (config.schema().isPresent()) {
            options = options.withSchema(config.schema().get());
        }
        this.store = JdbcDeliveryStore.open(config.store(), options);
        this.delivery = Delivery.builder(store).build();
        this.queue = new ArrayBlockingQueue<>(config.queue());
        this.writer = new Thread(this::run, "sluice-quota-warnings");
        this.writer.setDaemon(true);
        this.writer.start();
    }

    @Override
    public void onQuotaWarning(QuotaWarning warning) {
        log.onQuotaWarning(warning);
        if (!queue.offer(warning)) {
            drop(warning, "queue full (" + config.queue() + ")");
        }
    }

    private void run() {
        while (running || !queue.isEmpty()) {
            QuotaWarning w;
            try {
                w = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                if (!running) {
                    continue;
                }
                return;
            }
            if (w != null) {
                write(w);
            }
        }
    }

    private void write(QuotaWarning w) {
        Optional<String> destination;
        try {
            destination = destinationOf(w);
        } catch (RuntimeException e) {
            drop(w, "key store: " + e.getMessage());
            return;
        }
        if (destination.isEmpty()) {
            noDestination.incrementAndGet();
            return;
        }
        String idempotencyKey = idempotencyKey(w);
        try {
            EnqueueResult r = delivery.enqueue(new NewEvent(destination.get(), TYPE, payload(w), idempotencyKey,
                    "evt_qw_" + digest(idempotencyKey)));
            if (r.outcome() != EnqueueResult.Outcome.ENQUEUED) {
                duplicates.incrementAndGet();
            } else {
                enqueued.incrementAndGet();
            }
        } catch (RuntimeException e) {
            drop(w, e.getMessage());
        }
    }

    private Optional<String> destinationOf(QuotaWarning w) {
        if (keys.isPresent()) {
            Optional<String> own = keys.get().find(w.keyId()).flatMap(r -> r.key().warningDestination());
            if (own.isPresent()) {
                return own;
            }
        }
        String plan = config.plans().get(w.plan());
        return plan != null ? Optional.of(plan) : config.destination();
    }

    private void drop(QuotaWarning w, String why) {
        dropped.incrementAndGet();
        long now = System.nanoTime();
        synchronized (this) {
            if (lastDropLogNanos != 0 && now - lastDropLogNanos < TimeUnit.SECONDS.toNanos(10)) {
                return;
            }
            lastDropLogNanos = now;
        }
        LOG.warn("quota.warning not enqueued for delivery (key_id={} policy={}): {}; {} dropped so far", w.keyId(),
                w.policy(), why, dropped.get());
    }

    /**
     * {@code quota-warning:<key id>:<policy>:<window end, epoch seconds>}: one per key, policy and window. No
     * {@code '.'}: the key is also the signed {@code webhook-id} (Standard Webhooks' id alphabet).
     */
    public static String idempotencyKey(QuotaWarning w) {
        return "quota-warning:" + w.keyId() + ":" + w.policy().replace('.', '-') + ":"
                + w.windowResetAt().getEpochSecond();
    }

    /** The event's JSON body. */
    public static String payload(QuotaWarning w) {
        ObjectNode o = JSON.createObjectNode();
        o.put("type", TYPE);
        o.put("key_id", w.keyId());
        o.put("plan", w.plan());
        o.put("policy", w.policy());
        o.put("used", w.used());
        o.put("q", w.quota());
        o.put("window_reset_at", w.windowResetAt().toString());
        o.put("at", w.at().toString());
        return o.toString();
    }

    private static String digest(String s) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 12);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Warnings written to the outbox (first time for their window). */
    public long enqueued() {
        return enqueued.get();
    }

    /** Warnings the outbox already had (same key, policy and window). */
    public long duplicates() {
        return duplicates.get();
    }

    /** Warnings lost: queue full, store down, unknown destination. */
    public long dropped() {
        return dropped.get();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("sluice_quota_warnings_enqueued", enqueued, AtomicLong::get)
                .description("quota.warning events written to the delivery outbox").register(registry);
        FunctionCounter.builder("sluice_quota_warnings_duplicate", duplicates, AtomicLong::get)
                .description("quota.warning events the outbox already had").register(registry);
        FunctionCounter.builder("sluice_quota_warnings_dropped", dropped, AtomicLong::get)
                .description("quota.warning events lost (queue full, store down, unknown destination)")
                .register(registry);
    }

    @Override
    public void close() {
        running = false;
        try {
            writer.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        delivery.close();
        store.close();
    }
}
