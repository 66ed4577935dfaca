package dev.sluice.edge.escalation;

import dev.sluice.edge.decision.Caller;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.edge.response.Problems;
import dev.sluice.time.TimeSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * Abusive retry loops (SPEC §3.12), the first stage: per API key it counts, over a sliding window
 * (default a minute, in six buckets), the key's requests and those that arrived inside the key's own
 * last Retry-After window. When the early share is above the threshold (default 50 %) with at least
 * {@code min-requests} early requests, the key escalates one level:
 * <ul>
 *   <li>levels 1..{@code max-doublings}: the key's next 429 tells it to wait {@code 2^level} times the
 *       limiter's Retry-After (capped at {@code max-retry-after}), and the stage holds it to that: until
 *       then its requests get that 429 from here, without reaching the limiter (never charged);</li>
 *   <li>one level more: a temporary block ({@code block}, default 120 s): every request is a 429
 *       {@code retry_loop_blocked} (draft-11 {@code abnormal-usage-detected} with
 *       {@code problem.types: iana}) whose Retry-After is the time left.</li>
 * </ul>
 * Each escalation is logged (at most 20 lines a minute for the whole edge); a level decays by one for
 * each {@code window} without a new escalation, and the key's state is dropped once it is calm. Keys
 * never share state: another key's requests are neither counted nor delayed. Thread-safe (one small
 * lock per key in trouble; keys without a recent 429 cost one map lookup).
 */
public final class RetryLoopEscalation implements EdgeStage {

    private static final int BUCKETS = 6;

    private final EscalationConfig config;
    private final TimeSource time;
    private final Supplier<Problems> problems;
    private final ConcurrentHashMap<String, KeyLoop> keys = new ConcurrentHashMap<>();
    private final ThrottledLog log;
    private final long windowNanos;
    private final long bucketNanos;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile int sweepAt = 1024;

    public RetryLoopEscalation(EscalationConfig config, TimeSource time, Supplier<Problems> problems) {
        this.config = config;
        this.time = time;
        this.problems = problems;
        this.log = new ThrottledLog(LoggerFactory.getLogger(RetryLoopEscalation.class), time, 20);
        this.windowNanos = config.window().toNanos();
        this.bucketNanos = Math.max(1, windowNanos / BUCKETS);
    }

    /** The escalation level of {@code apiKey} now: 0 calm, 1..max-doublings longer waits, above: blocked. */
    public int level(String apiKey) {
        KeyLoop k = keys.get(apiKey);
        if (k == null) {
            return 0;
        }
        synchronized (k) {
            k.decay(time.nanoTime());
            return k.level;
        }
    }

    /** Keys with escalation state (for tests and metrics). */
    public int trackedKeys() {
        return keys.size();
    }

    @Override
    public CompletionStage<Verdict> apply(EdgeRequest request, Chain chain) {
        if (!config.enabled() || !(request.caller() instanceof Caller.ApiKey apiKey)) {
            return chain.proceed(request);
        }
        String key = apiKey.limiterKey();
        long now = time.nanoTime();
        KeyLoop k = keys.get(key);
        int level = 0;
        if (k != null) {
            long waitNanos;
            boolean blocked;
            synchronized (k) {
                k.decay(now);
                k.count(now);
                k.maybeEscalate(now, key);
                level = k.level;
                blocked = now - k.blockedUntil < 0;
                waitNanos = blocked ? k.blockedUntil - now : k.penaltyUntil - now;
                if (waitNanos > 0) {
                    k.windowEnd = blocked ? k.blockedUntil : k.penaltyUntil;
                }
            }
            if (waitNanos > 0) {
                long seconds = ceilSeconds(waitNanos);
                String detail = blocked
                        ? "This key kept retrying inside its Retry-After window; it is blocked for " + seconds
                                + " s. Honour Retry-After."
                        : "This key keeps retrying before its Retry-After; wait " + seconds + " s.";
                return CompletableFuture.completedFuture(new Verdict.Answer(
                        problems.get().escalated(blocked, seconds, detail),
                        new DecisionRecord(request.route().id(), request.keyClass(), DecisionOutcome.ESCALATED, false)));
            }
        }
        int levelAtStart = level;
        return chain.proceed(request).thenApply(v -> afterDecision(request, key, v, levelAtStart));
    }

    /** Remembers the key's Retry-After window from a 429; lengthens it when the key is escalated. */
    private Verdict afterDecision(EdgeRequest request, String key, Verdict v, int level) {
        if (!(v instanceof Verdict.Answer a) || a.response().status() != 429) {
            return v;
        }
        long retryAfter = a.response().header("Retry-After").map(RetryLoopEscalation::parseSeconds).orElse(0L);
        if (retryAfter <= 0) {
            return v;
        }
        long now = time.nanoTime();
        long seconds = retryAfter;
        if (level > 0) {
            long cap = Math.max(retryAfter, config.maxRetryAfter().toSeconds());
            seconds = Math.min(cap, retryAfter << Math.min(level, 20));
        }
        KeyLoop k = keys.computeIfAbsent(key, x -> new KeyLoop(now));
        synchronized (k) {
            k.windowEnd = now + seconds * 1_000_000_000L;
            if (level > 0) {
                k.penaltyUntil = k.windowEnd;
            }
        }
        maybeSweep(now);
        if (level == 0 || seconds == retryAfter) {
            return v;
        }
        return new Verdict.Answer(problems.get().escalated(false, seconds, "This key keeps retrying before its "
                + "Retry-After; wait " + seconds + " s."), new DecisionRecord(request.route().id(), request.keyClass(),
                DecisionOutcome.ESCALATED, false));
    }

    private void maybeSweep(long now) {
        if (keys.size() < sweepAt || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            keys.forEach((key, k) -> {
                synchronized (k) {
                    k.decay(now);
                    if (k.calm(now)) {
                        keys.remove(key, k);
                    }
                }
            });
            sweepAt = Math.max(1024, 2 * keys.size());
        } finally {
            sweeping.set(false);
        }
    }

    private static long parseSeconds(String v) {
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static long ceilSeconds(long nanos) {
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }

    /** One key's loop detector. Guarded by its own monitor. */
    private final class KeyLoop {
        final long[] total = new long[BUCKETS];
        final long[] early = new long[BUCKETS];
        final long[] bucketId = new long[BUCKETS];
        final long origin;
        long windowEnd;
        long penaltyUntil;
        long blockedUntil;
        int level;
        long lastEscalation;

        KeyLoop(long now) {
            origin = now;
            windowEnd = now;
            penaltyUntil = now;
            blockedUntil = now;
            lastEscalation = now;
        }

        private int slot(long id) {
            return (int) Math.floorMod(id, (long) BUCKETS);
        }

        void count(long now) {
            long id = (now - origin) / bucketNanos;
            int s = slot(id);
            if (bucketId[s] != id) {
                bucketId[s] = id;
                total[s] = 0;
                early[s] = 0;
            }
            total[s]++;
            if (now - windowEnd < 0) {
                early[s]++;
            }
        }

        void maybeEscalate(long now, String key) {
            if (now - blockedUntil < 0) {
                return; // already blocked: the block is the top level
            }
            long id = (now - origin) / bucketNanos;
            long t = 0;
            long e = 0;
            for (int i = 0; i < BUCKETS; i++) {
                if (id - bucketId[i] < BUCKETS) {
                    t += total[i];
                    e += early[i];
                }
            }
            if (e < config.minRequests() || e * 100 <= t * config.thresholdPercent()) {
                return;
            }
            level = Math.min(level + 1, config.maxDoublings() + 1);
            lastEscalation = now;
            java.util.Arrays.fill(total, 0);
            java.util.Arrays.fill(early, 0);
            if (level > config.maxDoublings()) {
                blockedUntil = now + config.block().toNanos();
                log.warn("retry loop: key {}… blocked for {} ({} of {} requests inside its Retry-After window)",
                        prefix(key), config.block(), e, t);
            } else {
                log.warn("retry loop: key {}… escalated to level {}: Retry-After x{} ({} of {} requests inside"
                        + " its Retry-After window)", prefix(key), level, 1L << level, e, t);
            }
        }

        void decay(long now) {
            if (now - blockedUntil < 0) {
                return;
            }
            long calmFor = now - Math.max(lastEscalation, blockedUntil);
            long steps = calmFor / windowNanos;
            if (steps > 0 && level > 0) {
                int before = level;
                level = (int) Math.max(0, level - steps);
                lastEscalation = Math.max(lastEscalation, blockedUntil) + steps * windowNanos;
                if (level == 0 && before > 0) {
                    log.warn("retry loop: a key's escalation decayed to level 0");
                }
            }
        }

        boolean calm(long now) {
            return level == 0 && now - windowEnd >= 0 && now - penaltyUntil >= 0 && now - blockedUntil >= 0
                    && now - lastEscalation >= windowNanos;
        }
    }

    /** The first 8 characters of a key: enough to find it, not enough to use it. */
    private static String prefix(String key) {
        return key.length() <= 8 ? key.substring(0, Math.min(4, key.length())) : key.substring(0, 8);
    }
}
