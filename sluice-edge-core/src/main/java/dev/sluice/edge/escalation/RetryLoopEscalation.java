package dev.sluice.edge.escalation;

import dev.sluice.edge.decision.Caller;
import dev.sluice.edge.decision.DecisionOutcome;
import dev.sluice.edge.decision.DecisionRecord;
import dev.sluice.edge.decision.EdgeRequest;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.pipeline.EdgeStage;
import dev.sluice.edge.pipeline.ThrottledLog;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.response.Problems;
import dev.sluice.limiter.Policy;
import dev.sluice.time.TimeSource;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;

/**
 * Abusive retry loops (SPEC §3.12), the first stage: per API key <em>and client address</em> (a loop)
 * it counts, over a sliding window (default a minute, in six buckets), the loop's requests and those that
 * arrived inside the loop's own last Retry-After window. When the early share is above the threshold
 * (default 50 %) with at least {@code min-requests} early requests, the loop escalates one level:
 * <ul>
 *   <li>levels 1..{@code max-doublings}: the key's next 429 tells it to wait {@code 2^level} times the
 *       limiter's Retry-After (capped at {@code max-retry-after}), and the stage holds it to that: until
 *       then its requests get that 429 from here, without reaching the limiter (never charged);</li>
 *   <li>every 429 of the stage is a rate-limit 429 like the limiter's (SPEC §2.3, §3.4): {@code limit} and
 *       {@code violated-policies} of the loop's last denial, {@code retry_after_s} = {@code Retry-After},
 *       and that policy's {@code RateLimit} member at {@code r=0}, {@code t} = {@code Retry-After};</li>
 *   <li>one level more: a temporary block ({@code block}, default 120 s): every request is a 429
 *       {@code retry_loop_blocked} (draft-11 {@code abnormal-usage-detected} with
 *       {@code problem.types: iana}) whose Retry-After is the time left.</li>
 * </ul>
 * Each escalation is logged (at most 20 lines a minute for the whole edge); a level decays by one for
 * each {@code window} without a new escalation, and the loop's state is dropped once it is calm. Loops
 * never share state: another key's requests, and another client address's requests with the same key (a
 * key shared by several clients, one of them misbehaving), are neither counted nor delayed; they still
 * share the key's limits. Thread-safe (one small lock per loop in trouble; keys without a recent 429 cost
 * one map lookup).
 */
public final class RetryLoopEscalation implements EdgeStage {

    private static final int BUCKETS = 6;

    private final EscalationConfig config;
    private final TimeSource time;
    private final Supplier<Problems> problems;
    private final ConcurrentHashMap<LoopId, KeyLoop> keys = new ConcurrentHashMap<>();
    private final HeldFields heldFields;
    private final ThrottledLog log;
    private final long windowNanos;
    private final long bucketNanos;
    private final AtomicBoolean sweeping = new AtomicBoolean();
    private volatile int sweepAt = 1024;

    /**
     * The rate-limit fields of a 429 the stage writes itself: the key's standing with {@code policy}'s member
     * at {@code r=0}, {@code t=retryAfterSeconds} ({@link dev.sluice.edge.decision.EdgeDecider#heldFields}).
     */
    @FunctionalInterface
    public interface HeldFields {
        CompletionStage<List<Header>> fields(Caller.ApiKey key, String policy, long retryAfterSeconds);
    }

    /** A retry loop: one API key from one client address (SPEC §3.12: other clients are unaffected). */
    private record LoopId(String key, String clientAddress) {
    }

    /**
     * A stage whose own 429s get their rate-limit fields later, from the limiter's standing (the decider adds
     * them, with the limiter's {@code t}); {@link #RetryLoopEscalation(EscalationConfig, TimeSource, Supplier,
     * HeldFields)} is what the edge uses.
     */
    public RetryLoopEscalation(EscalationConfig config, TimeSource time, Supplier<Problems> problems) {
        this(config, time, problems, null);
    }

    /**
     * @param heldFields the fields of the stage's own 429s, or {@code null} to leave them to the decider
     */
    public RetryLoopEscalation(EscalationConfig config, TimeSource time, Supplier<Problems> problems,
            HeldFields heldFields) {
        this.heldFields = heldFields;
        this.config = config;
        this.time = time;
        this.problems = problems;
        this.log = new ThrottledLog(LoggerFactory.getLogger(RetryLoopEscalation.class), time, 20);
        this.windowNanos = config.window().toNanos();
        this.bucketNanos = Math.max(1, windowNanos / BUCKETS);
    }

    /**
     * The escalation level of {@code apiKey} from {@code clientAddress} now: 0 calm, 1..max-doublings longer
     * waits, above: blocked.
     */
    public int level(String apiKey, String clientAddress) {
        KeyLoop k = keys.get(new LoopId(apiKey, clientAddress));
        if (k == null) {
            return 0;
        }
        synchronized (k) {
            k.decay(time.nanoTime());
            return k.level;
        }
    }

    /** The highest escalation level of {@code apiKey} over its client addresses now (tests, operators). */
    public int level(String apiKey) {
        int max = 0;
        for (Map.Entry<LoopId, KeyLoop> e : keys.entrySet()) {
            if (e.getKey().key().equals(apiKey)) {
                max = Math.max(max, level(apiKey, e.getKey().clientAddress()));
            }
        }
        return max;
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
        LoopId key = new LoopId(apiKey.limiterKey(), request.head().clientAddress());
        long now = time.nanoTime();
        KeyLoop k = keys.get(key);
        int level = 0;
        if (k != null) {
            long waitNanos;
            boolean blocked;
            String limit;
            List<String> violated;
            Held cached;
            synchronized (k) {
                cached = k.held;
                limit = k.limit;
                violated = k.violated;
                k.decay(now);
                k.count(now);
                k.maybeEscalate(now);
                level = k.level;
                blocked = now - k.blockedUntil < 0;
                waitNanos = blocked ? k.blockedUntil - now : k.penaltyUntil - now;
                if (waitNanos > 0) {
                    k.windowEnd = blocked ? k.blockedUntil : k.penaltyUntil;
                }
            }
            if (waitNanos > 0) {
                long seconds = ceilSeconds(waitNanos);
                Problems p = problems.get();
                EdgeResponse response;
                if (cached != null && cached.matches(p, blocked, seconds, limit, violated)) {
                    response = cached.response(); // a key looping at full speed: the same bytes for a second
                } else {
                    String detail = blocked
                            ? "This key kept retrying inside its Retry-After window; it is blocked for " + seconds
                                    + " s. Honour Retry-After."
                            : "This key keeps retrying before its Retry-After; wait " + seconds + " s.";
                    response = p.escalated(blocked, seconds, detail, limit, violated);
                    synchronized (k) {
                        k.held = new Held(p, blocked, seconds, limit, violated, response);
                    }
                }
                return held(apiKey, new Verdict.Answer(response,
                        DecisionRecord.refused(request, DecisionOutcome.ESCALATED)), limit, seconds);
            }
        }
        int levelAtStart = level;
        return chain.proceed(request).thenCompose(v -> afterDecision(request, key, v, levelAtStart));
    }

    /** The stage's own 429 with the key's fields, its policy held at {@code r=0}, {@code t=seconds}. */
    private CompletionStage<Verdict> held(Caller.ApiKey key, Verdict.Answer answer, String limit, long seconds) {
        if (heldFields == null || limit == null) {
            return CompletableFuture.completedFuture(answer);
        }
        return heldFields.fields(key, limit, seconds).thenApply(fields ->
                new Verdict.Answer(answer.response().withHeaders(fields), answer.record()));
    }

    /** Remembers the key's Retry-After window from a 429; lengthens it when the key is escalated. */
    private CompletionStage<Verdict> afterDecision(EdgeRequest request, LoopId key, Verdict v, int level) {
        CompletionStage<Verdict> same = CompletableFuture.completedFuture(v);
        if (!(v instanceof Verdict.Answer a) || a.response().status() != 429) {
            return same;
        }
        long retryAfter = a.response().header("Retry-After").map(RetryLoopEscalation::parseSeconds).orElse(0L);
        if (retryAfter <= 0) {
            return same;
        }
        String limit = a.denial().map(d -> d.policy().name()).orElse(null);
        List<String> violated = a.denial().map(d -> d.violated().stream().map(Policy::name).toList())
                .orElse(List.of());
        long now = time.nanoTime();
        long seconds = retryAfter;
        if (level > 0) {
            long cap = Math.max(retryAfter, config.maxRetryAfter().toSeconds());
            seconds = Math.min(cap, retryAfter << Math.min(level, 20));
        }
        // logs name the key by its id and plan, never by the key (SPEC §3.12: "and logs it")
        String logName = request.caller() instanceof Caller.ApiKey apiKey
                ? "key_id=" + apiKey.keyId() + " plan=" + apiKey.plan().name() + " client=" + key.clientAddress()
                : "key";
        KeyLoop k = keys.computeIfAbsent(key, x -> new KeyLoop(now, logName));
        synchronized (k) {
            k.windowEnd = now + seconds * 1_000_000_000L;
            if (level > 0) {
                k.penaltyUntil = k.windowEnd;
            }
            if (limit != null) {
                k.limit = limit;
                k.violated = violated;
            }
        }
        maybeSweep(now);
        if (level == 0 || seconds == retryAfter || !(request.caller() instanceof Caller.ApiKey apiKey)) {
            return same;
        }
        return held(apiKey, new Verdict.Answer(problems.get().escalated(false, seconds, "This key keeps retrying "
                + "before its Retry-After; wait " + seconds + " s.", limit, violated), DecisionRecord.refused(
                request, DecisionOutcome.ESCALATED)), limit, seconds);
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
    /**
     * The last held answer of a key and what it was made of (the rules' {@link Problems} by identity: a reload
     * brings a new one): a key retrying thousands of times a second gets the same answer until its
     * {@code Retry-After} second, its policy or the rules change.
     */
    private record Held(Problems problems, boolean blocked, long seconds, String limit, List<String> violated,
            EdgeResponse response) {
        boolean matches(Problems p, boolean b, long s, String l, List<String> v) {
            return problems == p && blocked == b && seconds == s && Objects.equals(limit, l) && violated.equals(v);
        }
    }

    private final class KeyLoop {
        final long[] total = new long[BUCKETS];
        final long[] early = new long[BUCKETS];
        final long[] bucketId = new long[BUCKETS];
        final long origin;
        long windowEnd;
        long penaltyUntil;
        /** the policy and violated-policies of the loop's last limiter denial (null / empty before one) */
        String limit;
        List<String> violated = List.of();
        /** the last held answer, or null */
        Held held;
        long blockedUntil;
        int level;
        long lastEscalation;
        final String logName;

        KeyLoop(long now, String logName) {
            this.logName = logName;
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

        void maybeEscalate(long now) {
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
                log.warn("retry loop: {} blocked for {} ({} of {} requests inside its Retry-After window)",
                        logName, config.block(), e, t);
            } else {
                log.warn("retry loop: {} escalated to level {}: Retry-After x{} ({} of {} requests inside"
                        + " its Retry-After window)", logName, level, 1L << level, e, t);
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
                    log.warn("retry loop: {} decayed to level 0", logName);
                }
            }
        }

        boolean calm(long now) {
            return level == 0 && now - windowEnd >= 0 && now - penaltyUntil >= 0 && now - blockedUntil >= 0
                    && now - lastEscalation >= windowNanos;
        }
    }

}
