package dev.sluice.edge.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.softlimit.QuotaWarning;
import dev.sluice.edge.softlimit.QuotaWarningSink;
import dev.sluice.time.TimeSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.Locale;
import java.util.Objects;

/**
 * What the admin port's live dashboard shows ({@code GET /admin/v1/dashboard}, polled by the page at
 * {@code GET /}): per plan and route, admitted / 429 / 503 / shed decisions per second over the last
 * {@link #WINDOW_SECONDS} seconds and since the start ({@link DecisionRates}); the keys refused most often,
 * by id ({@link RejectedKeys}); the limiter store, and for Redis whether it is up, the local share
 * ({@code 1/N} of each {@code q}, SPEC §3.14) and the share of decisions the local fallback answered; the
 * latest soft-limit warnings ({@code quota.warning}, SPEC §3.8).
 *
 * <p>The Redis figures are read from the meters the {@code sluice edge} command registers
 * ({@code sluice.edge.store.redis.up}, {@code sluice.edge.store.decisions{answered_by}}); without them the
 * store shows as unknown rather than up.
 *
 * <p>Memory is bounded: the rates by the configured plans and routes, the keys by {@link #TOP_KEY_SLOTS},
 * the warnings by {@link #RECENT_WARNINGS}. Thread-safe: {@link #decision} and the warning sink run on the
 * event loops, {@link #snapshot()} on the admin port's.
 */
public final class Dashboard {

    /** The seconds a per-second rate is averaged over. */
    public static final int WINDOW_SECONDS = 10;
    /** The keys the rejection summary monitors at once. */
    public static final int TOP_KEY_SLOTS = 64;
    /** The keys the snapshot lists. */
    public static final int TOP_KEYS_SHOWN = 10;
    /** The soft-limit warnings kept for the snapshot. */
    public static final int RECENT_WARNINGS = 20;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final TimeSource time;
    private final MeterRegistry registry;
    private final StoreConfig store;
    private final DecisionRates rates;
    private final RejectedKeys rejected = new RejectedKeys(TOP_KEY_SLOTS);
    private final Deque<QuotaWarning> warnings = new ArrayDeque<>(RECENT_WARNINGS); // guarded by itself
    private long warningsTotal; // guarded by warnings
    private final Deque<long[]> storeSamples = new ArrayDeque<>(); // {second, fallback, all}; guarded by itself

    /**
     * @param time the edge's clock: monotonic nanos bucket the rates, the instant stamps the snapshot
     * @param registry the edge's registry, where the store's meters are found
     * @param store the store section in force
     */
    public Dashboard(TimeSource time, MeterRegistry registry, StoreConfig store) {
        this.time = Objects.requireNonNull(time, "time");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.store = Objects.requireNonNull(store, "store");
        this.rates = new DecisionRates(time, WINDOW_SECONDS);
    }

    /** Counts one decision; a refused API key's 429 or 503 also counts for that key. */
    public void decision(DecisionRecord record) {
        rates.record(record);
        if (record.keyId().isEmpty()) {
            return;
        }
        switch (DecisionRates.Column.of(record)) {
            case TOO_MANY_REQUESTS -> rejected.record(record.keyId(), record.keyClass(), 429);
            case UNAVAILABLE, SHED -> rejected.record(record.keyId(), record.keyClass(), 503);
            default -> {
            }
        }
    }

    /** A sink that remembers each warning for the dashboard, then hands it to {@code next}. */
    public QuotaWarningSink recording(QuotaWarningSink next) {
        Objects.requireNonNull(next, "next");
        return w -> {
            synchronized (warnings) {
                if (warnings.size() == RECENT_WARNINGS) {
                    warnings.removeLast();
                }
                warnings.addFirst(w);
                warningsTotal++;
            }
            next.onQuotaWarning(w);
        };
    }

    /** The decision rates (for tests and other views). */
    public DecisionRates rates() {
        return rates;
    }

    /** The rejection summary. */
    public RejectedKeys rejectedKeys() {
        return rejected;
    }

    /**
     * The current state as the JSON of {@code GET /admin/v1/dashboard}:
     * <pre>{@code
     * {"at": "2025-06-01T12:00:00Z", "window_seconds": 10,
     *  "series": [{"plan": "free", "route": "GET /v1/quotes",
     *              "per_second": {"admitted": 4.2, "status_429": 0.3, "status_503": 0, "shed": 0, "other": 0},
     *              "total": {"admitted": 420, ...}}],
     *  "top_rejected_keys": [{"key_id": "k3f9a1c2b7d4e", "plan": "free", "rejections": 10, "error": 0,
     *                         "status_429": 10, "status_503": 0}],
     *  "top_keys_monitored": 64,
     *  "store": {"kind": "redis", "url": "redis://127.0.0.1:6379", "up": true, "replicas": 4,
     *            "local_share": 0.25, "fallback_share": 0.0, "decisions_per_second": 12.5},
     *  "quota_warnings": {"total": 1, "recent": [{"key_id": ..., "plan": ..., "policy": ..., "used": 80,
     *                     "quota": 100, "window_reset_at": ..., "at": ...}]}}
     * }</pre>
     * {@code up}, {@code fallback_share} and {@code decisions_per_second} are {@code null} when unknown (no
     * store meters, or no decisions in the window).
     */
    public ObjectNode snapshot() {
        ObjectNode out = JSON.createObjectNode();
        out.put("at", time.now().toString());
        out.put("window_seconds", rates.windowSeconds());
        ArrayNode series = out.putArray("series");
        for (DecisionRates.Row row : rates.rows()) {
            ObjectNode n = series.addObject();
            n.put("plan", row.plan());
            n.put("route", row.route());
            ObjectNode perSecond = n.putObject("per_second");
            ObjectNode total = n.putObject("total");
            for (DecisionRates.Column c : DecisionRates.Column.values()) {
                perSecond.put(c.label(), Math.round(row.perSecond(c) * 100) / 100.0);
                total.put(c.label(), row.total(c));
            }
        }
        ArrayNode top = out.putArray("top_rejected_keys");
        for (RejectedKeys.Top t : rejected.top(TOP_KEYS_SHOWN)) {
            ObjectNode n = top.addObject();
            n.put("key_id", t.keyId());
            n.put("plan", t.plan());
            n.put("rejections", t.rejections());
            n.put("error", t.error());
            n.put("status_429", t.status429());
            n.put("status_503", t.status503());
        }
        out.put("top_keys_monitored", rejected.capacity());
        storeStatus(out.putObject("store"));
        ObjectNode w = out.putObject("quota_warnings");
        ArrayNode recent = w.putArray("recent");
        synchronized (warnings) {
            w.put("total", warningsTotal);
            for (QuotaWarning q : warnings) {
                ObjectNode n = recent.addObject();
                n.put("key_id", q.keyId());
                n.put("plan", q.plan());
                n.put("policy", q.policy());
                n.put("used", q.used());
                n.put("quota", q.quota());
                n.put("window_reset_at", q.windowResetAt().toString());
                n.put("at", q.at().toString());
            }
        }
        return out;
    }

    private void storeStatus(ObjectNode n) {
        switch (store) {
            case StoreConfig.Memory m -> n.put("kind", "memory");
            case StoreConfig.Redis r -> {
                n.put("kind", "redis");
                n.put("url", r.maskedUrl());
                n.put("failure_mode", r.failureMode().name().toLowerCase(Locale.ROOT).replace('_', '-'));
                Gauge up = registry.find("sluice.edge.store.redis.up").gauge();
                if (up == null) {
                    n.putNull("up");
                } else {
                    n.put("up", up.value() >= 1);
                }
                n.put("replicas", r.replicas());
                n.put("local_share", 1.0 / r.replicas());
                fallbackShare(n);
            }
        }
    }

    /**
     * The share of the store's decisions the local fallback answered over the window, from the counters
     * sampled here at each snapshot (at most one sample a second kept, for twice the window).
     */
    private void fallbackShare(ObjectNode n) {
        double fallback = 0;
        double all = 0;
        boolean found = false;
        for (FunctionCounter c : registry.find("sluice.edge.store.decisions").functionCounters()) {
            found = true;
            all += c.count();
            if ("fallback".equals(c.getId().getTag("answered_by"))) {
                fallback += c.count();
            }
        }
        if (!found) {
            n.putNull("fallback_share");
            n.putNull("decisions_per_second");
            return;
        }
        long now = Math.floorDiv(time.nanoTime(), NANOS_PER_SECOND);
        long[] oldest;
        synchronized (storeSamples) {
            long[] last = storeSamples.peekLast();
            if (last != null && last[0] == now) {
                storeSamples.removeLast();
            }
            storeSamples.addLast(new long[] {now, (long) fallback, (long) all});
            for (Iterator<long[]> it = storeSamples.iterator(); it.hasNext(); ) {
                if (it.next()[0] < now - 2L * WINDOW_SECONDS) {
                    it.remove();
                }
            }
            oldest = storeSamples.peekFirst();
            for (long[] s : storeSamples) {
                if (s[0] >= now - WINDOW_SECONDS) {
                    oldest = s;
                    break;
                }
            }
        }
        long seconds = now - oldest[0];
        double dAll = all - oldest[2];
        double dFallback = fallback - oldest[1];
        if (seconds == 0) {
            // the first sample: the share since the start
            dAll = all;
            dFallback = fallback;
        }
        if (dAll <= 0) {
            n.putNull("fallback_share");
        } else {
            n.put("fallback_share", Math.round(dFallback / dAll * 10_000) / 10_000.0);
        }
        if (seconds == 0) {
            n.putNull("decisions_per_second");
        } else {
            n.put("decisions_per_second", Math.round(dAll / seconds * 100) / 100.0);
        }
    }
}
