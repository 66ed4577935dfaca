package dev.sluice.limiter.memory;

import dev.sluice.limiter.Allowed;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.ConcurrencyPolicy;
import dev.sluice.limiter.CostExceedsBurst;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Decision;
import dev.sluice.limiter.DecisionKind;
import dev.sluice.limiter.Denied;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Policy;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.PolicyStateSink;
import dev.sluice.limiter.QuotaPolicy;
import dev.sluice.limiter.gcra.Gcra;
import dev.sluice.limiter.gcra.GcraParams;
import dev.sluice.limiter.quota.CalendarWindow;
import dev.sluice.limiter.quota.QuotaCounter;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.time.TimeSource;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The reference {@link LimiterStore}: limiter state in this process's memory.
 *
 * <p><b>State.</b> One {@code long} per key per policy: a burst policy's GCRA theoretical arrival
 * time ({@link Gcra}), a quota policy's packed (window, used) pair ({@link QuotaCounter}). A plan of
 * one policy keeps that {@code long} in a field of the key's state object and updates it with one
 * compare-and-set, allocating nothing; a plan of two keeps two {@code long} fields behind a version
 * (a sequence lock, held for two stores), allocating nothing; a plan of more keeps an immutable
 * {@code long[]} swapped by compare-and-set. So all policies change together or not at all (SPEC
 * §3.3). There is no global lock; a denial writes nothing.
 *
 * <p><b>Memory.</b> A key whose every policy is full carries no information and is evicted:
 * {@link #evictFull()} does it, and the store runs it itself, amortised, whenever the number of keys
 * reaches a threshold (initially {@code sweepThreshold}, then twice the keys that survived the last
 * sweep). So the key count stays below {@code max(sweepThreshold, 2 × L)} where {@code L} is the
 * number of keys not full at the last sweep: for burst-only plans, the keys seen within the longest
 * window {@code w}; with a quota, the keys that spent anything in the current window. A flood of
 * random keys therefore costs memory for {@code w} seconds only, unless those keys hold a quota (the
 * edge only creates state for authenticated keys).
 *
 * <p><b>Concurrency policies</b> keep the key's in-flight count in their slot, taken by
 * {@link #decide} with the other policies and given back by {@link #release}; a key with a request in
 * flight is never full, so it is never evicted while it holds a slot.
 *
 * <p><b>Time.</b> Burst policies read {@link TimeSource#nanoTime()}, as microseconds since the store
 * was built (compared by subtraction, so an origin near {@code Long.MAX_VALUE} is fine; a reading
 * before the origin counts as the origin). Quota policies read {@link TimeSource#epochSecond(long)} with the same
 * monotonic reading (a
 * denial's exact wait also {@link TimeSource#now()}).
 *
 * <p>Thread-safe.
 */
public final class InMemoryLimiterStore implements LimiterStore {

    /** The default key count that triggers the first eviction sweep. */
    public static final int DEFAULT_SWEEP_THRESHOLD = 1 << 16;

    private static final long RETIRED = Long.MIN_VALUE;
    private static final long[] RETIRED_SLOTS = new long[0];

    private final TimeSource time;
    private final long originNanos;
    private final ConcurrentHashMap<String, KeyState> keys = new ConcurrentHashMap<>();
    private final int minSweepThreshold;
    private volatile int sweepThreshold;
    private final AtomicBoolean sweeping = new AtomicBoolean();

    /** A store reading {@code time}, with the default sweep threshold. */
    public InMemoryLimiterStore(TimeSource time) {
        this(time, DEFAULT_SWEEP_THRESHOLD);
    }

    /**
     * A store reading {@code time}, sweeping full keys once {@code sweepThreshold} keys are held.
     *
     * @throws IllegalArgumentException if {@code sweepThreshold < 1}
     */
    public InMemoryLimiterStore(TimeSource time, int sweepThreshold) {
        this.time = Objects.requireNonNull(time, "time");
        if (sweepThreshold < 1) {
            throw new IllegalArgumentException("sweepThreshold: must be >= 1, was " + sweepThreshold);
        }
        this.originNanos = time.nanoTime();
        this.minSweepThreshold = sweepThreshold;
        this.sweepThreshold = sweepThreshold;
    }

    /** How many keys currently hold state (a full key may linger until the next sweep). */
    public int keyCount() {
        return keys.size();
    }

    @Override
    public Decision decide(String key, Plan plan, Costs costs) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        return decide(key, plan, costs, (KeyHandle) null);
    }

    /** {@link #decide(String, Plan, Costs)} on the state {@code handle} holds (resolved by key when null). */
    private Decision decide(String key, Plan plan, Costs costs, @Nullable KeyHandle handle) {
        Objects.requireNonNull(costs, "costs");
        int over = plan.indexOfCostExceedingQuota(costs);
        if (over >= 0) {
            Policy p = plan.policy(over);
            return new CostExceedsBurst(plan, p, costs.costFor(p));
        }
        long nanos = time.nanoTime();
        long micros = micros(nanos);
        long wall = plan.hasQuotaPolicy() ? time.epochSecond(nanos) : NO_WALL;
        KeyState state = handle != null ? handle.state : stateFor(key, plan);
        for (;;) {
            Decision d = switch (state) {
                case Single single -> decideSingle(single, plan, costs, micros, wall);
                case Pair pair -> decidePair(pair, plan, costs, micros, wall);
                case Multi multi -> decideMulti(multi, plan, costs, micros, wall);
            };
            if (d != null) {
                return d;
            }
            state = reresolve(key, plan, state, handle);
        }
    }

    /**
     * After {@code retired} was found retired (by a sweep or a plan change): helps remove it from the
     * map, resolves the key's state afresh and, for a handle, keeps it there.
     */
    private KeyState reresolve(String key, Plan plan, KeyState retired, @Nullable KeyHandle handle) {
        keys.remove(key, retired);
        KeyState fresh = stateFor(key, plan);
        if (handle != null) {
            handle.state = fresh;
        }
        return fresh;
    }

    private @Nullable Decision decideSingle(Single s, Plan plan, Costs costs, long micros, long wall) {
        Policy policy = plan.policy(0);
        long cost = costs.costFor(policy);
        for (int spins = 1;; spins = backOff(spins)) {
            long cur = s.value;
            if (cur == RETIRED) {
                return null;
            }
            long next = admit(plan, 0, cur, cost, micros, wall);
            if (next == DENIED) {
                return denied(plan, costs, new long[] {cur}, micros, wall, preciseWall(wall));
            }
            if (Single.VALUE.compareAndSet(s, cur, next)) {
                return new Allowed(plan, costs, List.of(stateOf(plan, 0, next, micros, wall)));
            }
        }
    }

    private @Nullable Decision decidePair(Pair s, Plan plan, Costs costs, long micros, long wall) {
        long cost0 = costs.costFor(plan.policy(0));
        long cost1 = costs.costFor(plan.policy(1));
        for (int spins = 1;; spins = backOff(spins)) {
            long version = s.version;
            if (version == Pair.RETIRED_VERSION) {
                return null;
            }
            if ((version & 1) != 0) {
                continue; // a writer is storing the two values
            }
            long cur0 = s.first;
            long cur1 = s.second;
            long next0 = admit(plan, 0, cur0, cost0, micros, wall);
            long next1 = next0 == DENIED ? DENIED : admit(plan, 1, cur1, cost1, micros, wall);
            if (next1 == DENIED) {
                if (s.unchangedSince(version)) {
                    return denied(plan, costs, new long[] {cur0, cur1}, micros, wall, preciseWall(wall));
                }
                continue;
            }
            if (s.store(version, next0, next1)) {
                return new Allowed(plan, costs, List.of(stateOf(plan, 0, next0, micros, wall),
                        stateOf(plan, 1, next1, micros, wall)));
            }
        }
    }

    private @Nullable Decision decideMulti(Multi s, Plan plan, Costs costs, long micros, long wall) {
        int n = plan.size();
        for (int spins = 1;; spins = backOff(spins)) {
            long[] cur = s.slots;
            if (cur == RETIRED_SLOTS) {
                return null;
            }
            long[] next = new long[n];
            boolean admitted = true;
            for (int i = 0; i < n && admitted; i++) {
                next[i] = admit(plan, i, cur[i], costs.costFor(plan.policy(i)), micros, wall);
                admitted = next[i] != DENIED;
            }
            if (!admitted) {
                return denied(plan, costs, cur, micros, wall, preciseWall(wall));
            }
            if (Multi.SLOTS.compareAndSet(s, cur, next)) {
                return new Allowed(plan, costs, states(plan, next, micros, wall));
            }
        }
    }

    /**
     * Admits or refuses exactly as {@link #decide} does, charging the same state (all policies or
     * none, SPEC §3.3), but answers only whether the request was admitted: no {@link Decision} and no
     * {@link PolicyState}s are built, so an admitted request on a plan of one policy allocates nothing.
     * For callers that write no {@code RateLimit} fields: an in-process limiter in front of a job, a
     * worker or a client. {@code tryAcquire} and {@code decide} may be mixed on one key.
     *
     * <p>A charge taken this way cannot be refunded (a refund needs the {@link Allowed} that
     * {@code decide} returns).
     *
     * @param key the limited key (API key id, tenant, …)
     * @param plan the key's plan; it may not hold a {@link ConcurrencyPolicy}
     * @param costs the request's cost per policy
     * @return {@code true} if every policy admitted the request and was charged; {@code false} if a
     *     policy refused it, or its cost exceeds a policy's quota (nothing charged)
     * @throws IllegalArgumentException if {@code plan} holds a concurrency policy, whose slot must be
     *     given back with {@link #release}, which needs {@code decide}'s {@link Allowed}
     * @throws NullPointerException if an argument is null
     */
    public boolean tryAcquire(String key, Plan plan, Costs costs) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        requireNoConcurrencyPolicy(plan);
        return tryAcquire(key, plan, costs, null);
    }

    private boolean tryAcquire(String key, Plan plan, Costs costs, @Nullable KeyHandle handle) {
        Objects.requireNonNull(costs, "costs");
        if (plan.indexOfCostExceedingQuota(costs) >= 0) {
            return false;
        }
        long nanos = time.nanoTime();
        long micros = micros(nanos);
        long wall = plan.hasQuotaPolicy() ? time.epochSecond(nanos) : NO_WALL;
        KeyState state = handle != null ? handle.state : stateFor(key, plan);
        for (;;) {
            int answer = switch (state) {
                case Single single -> acquireSingle(single, plan, costs, micros, wall);
                case Pair pair -> acquirePair(pair, plan, costs, micros, wall);
                case Multi multi -> acquireMulti(multi, plan, costs, micros, wall);
            };
            if (answer != RETRY) {
                return answer == ADMITTED;
            }
            state = reresolve(key, plan, state, handle);
        }
    }

    private static final int REFUSED = 0;
    private static final int ADMITTED = 1;
    private static final int RETRY = -1;

    private static int acquireSingle(Single s, Plan plan, Costs costs, long micros, long wall) {
        long cost = costs.costFor(plan.policy(0));
        for (int spins = 1;; spins = backOff(spins)) {
            long cur = s.value;
            if (cur == RETIRED) {
                return RETRY;
            }
            long next = admit(plan, 0, cur, cost, micros, wall);
            if (next == DENIED) {
                return REFUSED;
            }
            if (Single.VALUE.compareAndSet(s, cur, next)) {
                return ADMITTED;
            }
        }
    }

    private static int acquirePair(Pair s, Plan plan, Costs costs, long micros, long wall) {
        long cost0 = costs.costFor(plan.policy(0));
        long cost1 = costs.costFor(plan.policy(1));
        for (int spins = 1;; spins = backOff(spins)) {
            long version = s.version;
            if (version == Pair.RETIRED_VERSION) {
                return RETRY;
            }
            if ((version & 1) != 0) {
                continue;
            }
            long next0 = admit(plan, 0, s.first, cost0, micros, wall);
            long next1 = next0 == DENIED ? DENIED : admit(plan, 1, s.second, cost1, micros, wall);
            if (next1 == DENIED) {
                if (s.unchangedSince(version)) {
                    return REFUSED;
                }
                continue;
            }
            if (s.store(version, next0, next1)) {
                return ADMITTED;
            }
        }
    }

    private static int acquireMulti(Multi s, Plan plan, Costs costs, long micros, long wall) {
        int n = plan.size();
        for (int spins = 1;; spins = backOff(spins)) {
            long[] cur = s.slots;
            if (cur == RETIRED_SLOTS) {
                return RETRY;
            }
            long[] next = new long[n];
            for (int i = 0; i < n; i++) {
                next[i] = admit(plan, i, cur[i], costs.costFor(plan.policy(i)), micros, wall);
                if (next[i] == DENIED) {
                    return REFUSED;
                }
            }
            if (Multi.SLOTS.compareAndSet(s, cur, next)) {
                return ADMITTED;
            }
        }
    }

    /**
     * Decides exactly as {@link #decide(String, Plan, Costs)} does, charging the same state (all
     * policies or none, SPEC §3.3), but hands each policy's values to {@code sink} instead of building
     * a {@link Decision}: for a caller that writes the {@code RateLimit} fields at once. An admission
     * on a plan of one policy allocates nothing; a denial builds its {@link Denied} as {@code decide}
     * does (the wait needs it) and hands over its states and Retry-After.
     *
     * <p>As with {@link #tryAcquire}, a charge taken this way cannot be refunded, and a plan with a
     * concurrency policy is refused (its slot is given back with {@link #release}, which needs the
     * {@link Allowed}).
     *
     * @param sink gets every policy's state in plan order when the answer is {@link DecisionKind#ALLOWED}
     *     or {@link DecisionKind#DENIED} (then also {@link PolicyStateSink#denied}); nothing for
     *     {@link DecisionKind#COST_EXCEEDS_BURST}
     * @return which decision {@code decide} would have returned
     * @throws IllegalArgumentException if {@code plan} holds a concurrency policy
     * @throws NullPointerException if an argument is null
     */
    public DecisionKind decide(String key, Plan plan, Costs costs, PolicyStateSink sink) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        requireNoConcurrencyPolicy(plan);
        return decide(key, plan, costs, sink, null);
    }

    private DecisionKind decide(String key, Plan plan, Costs costs, PolicyStateSink sink, @Nullable KeyHandle handle) {
        Objects.requireNonNull(costs, "costs");
        Objects.requireNonNull(sink, "sink");
        if (plan.indexOfCostExceedingQuota(costs) >= 0) {
            return DecisionKind.COST_EXCEEDS_BURST;
        }
        long nanos = time.nanoTime();
        long micros = micros(nanos);
        long wall = plan.hasQuotaPolicy() ? time.epochSecond(nanos) : NO_WALL;
        KeyState state = handle != null ? handle.state : stateFor(key, plan);
        for (;;) {
            DecisionKind kind = switch (state) {
                case Single single -> decideSingle(single, plan, costs, micros, wall, sink);
                case Pair pair -> decidePair(pair, plan, costs, micros, wall, sink);
                case Multi multi -> decideMulti(multi, plan, costs, micros, wall, sink);
            };
            if (kind != null) {
                return kind;
            }
            state = reresolve(key, plan, state, handle);
        }
    }

    /**
     * A handle on {@code key} under {@code plan}: the key is looked up once, here, and each call on the
     * handle decides on its state directly, as a Bucket4j {@code Bucket} or a Resilience4j
     * {@code RateLimiter} object is held by its caller. For an in-process limit on a known key (a
     * worker, a client, a job queue) that would otherwise pay a map lookup per call.
     *
     * <p>A handle decides exactly as the store's keyed methods do on the same key and plan, and the two
     * may be mixed: they share the key's state. When the store forgets the key (a sweep found it full,
     * see the class comment) or another call moves it to another plan, the handle's next call finds its
     * state retired, looks the key up again and goes on (for the other plan: moves the key back, as
     * {@code decide(key, plan, …)} would).
     *
     * @param key the limited key
     * @param plan the key's plan
     * @return a handle, thread-safe like the store
     * @throws NullPointerException if an argument is null
     */
    public KeyHandle handle(String key, Plan plan) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        return new KeyHandle(key, plan, stateFor(key, plan));
    }

    /**
     * One key of this store under one plan, looked up once ({@link #handle}). Each method is its keyed
     * counterpart on the store with the key and plan bound. Thread-safe.
     */
    public final class KeyHandle {
        private final String key;
        private final Plan plan;
        /** The key's state as last resolved; replaced when found retired. A racy read is safe. */
        private KeyState state;

        private KeyHandle(String key, Plan plan, KeyState state) {
            this.key = key;
            this.plan = plan;
            this.state = state;
        }

        /** The key. */
        public String key() {
            return key;
        }

        /** The plan. */
        public Plan plan() {
            return plan;
        }

        /**
         * {@link InMemoryLimiterStore#decide(String, Plan, Costs)} on this key and plan; refund or release
         * its {@link Allowed} with {@code store.refund(handle.key(), allowed)}.
         *
         * @throws NullPointerException if {@code costs} is null
         */
        public Decision decide(Costs costs) {
            return InMemoryLimiterStore.this.decide(key, plan, costs, this);
        }

        /**
         * {@link InMemoryLimiterStore#decide(String, Plan, Costs, PolicyStateSink)} on this key and plan.
         *
         * @throws IllegalArgumentException if the plan holds a concurrency policy
         * @throws NullPointerException if an argument is null
         */
        public DecisionKind decide(Costs costs, PolicyStateSink sink) {
            requireNoConcurrencyPolicy(plan);
            return InMemoryLimiterStore.this.decide(key, plan, costs, sink, this);
        }

        /**
         * {@link InMemoryLimiterStore#tryAcquire(String, Plan, Costs)} on this key and plan.
         *
         * @throws IllegalArgumentException if the plan holds a concurrency policy
         * @throws NullPointerException if {@code costs} is null
         */
        public boolean tryAcquire(Costs costs) {
            requireNoConcurrencyPolicy(plan);
            return InMemoryLimiterStore.this.tryAcquire(key, plan, costs, this);
        }
    }

    private @Nullable DecisionKind decideSingle(Single s, Plan plan, Costs costs, long micros, long wall,
            PolicyStateSink sink) {
        long cost = costs.costFor(plan.policy(0));
        for (int spins = 1;; spins = backOff(spins)) {
            long cur = s.value;
            if (cur == RETIRED) {
                return null;
            }
            long next = admit(plan, 0, cur, cost, micros, wall);
            if (next == DENIED) {
                return denied(denied(plan, costs, new long[] {cur}, micros, wall, preciseWall(wall)), sink);
            }
            if (Single.VALUE.compareAndSet(s, cur, next)) {
                emit(plan, 0, next, micros, wall, sink);
                return DecisionKind.ALLOWED;
            }
        }
    }

    private @Nullable DecisionKind decidePair(Pair s, Plan plan, Costs costs, long micros, long wall,
            PolicyStateSink sink) {
        long cost0 = costs.costFor(plan.policy(0));
        long cost1 = costs.costFor(plan.policy(1));
        for (int spins = 1;; spins = backOff(spins)) {
            long version = s.version;
            if (version == Pair.RETIRED_VERSION) {
                return null;
            }
            if ((version & 1) != 0) {
                continue;
            }
            long cur0 = s.first;
            long cur1 = s.second;
            long next0 = admit(plan, 0, cur0, cost0, micros, wall);
            long next1 = next0 == DENIED ? DENIED : admit(plan, 1, cur1, cost1, micros, wall);
            if (next1 == DENIED) {
                if (s.unchangedSince(version)) {
                    return denied(denied(plan, costs, new long[] {cur0, cur1}, micros, wall, preciseWall(wall)), sink);
                }
                continue;
            }
            if (s.store(version, next0, next1)) {
                emit(plan, 0, next0, micros, wall, sink);
                emit(plan, 1, next1, micros, wall, sink);
                return DecisionKind.ALLOWED;
            }
        }
    }

    private @Nullable DecisionKind decideMulti(Multi s, Plan plan, Costs costs, long micros, long wall,
            PolicyStateSink sink) {
        int n = plan.size();
        for (int spins = 1;; spins = backOff(spins)) {
            long[] cur = s.slots;
            if (cur == RETIRED_SLOTS) {
                return null;
            }
            long[] next = new long[n];
            for (int i = 0; i < n; i++) {
                next[i] = admit(plan, i, cur[i], costs.costFor(plan.policy(i)), micros, wall);
                if (next[i] == DENIED) {
                    return denied(denied(plan, costs, cur, micros, wall, preciseWall(wall)), sink);
                }
            }
            if (Multi.SLOTS.compareAndSet(s, cur, next)) {
                for (int i = 0; i < n; i++) {
                    emit(plan, i, next[i], micros, wall, sink);
                }
                return DecisionKind.ALLOWED;
            }
        }
    }

    private static DecisionKind denied(Denied d, PolicyStateSink sink) {
        for (PolicyState st : d.states()) {
            sink.state(st.policy(), st.remaining(), st.resetSeconds(), st.used(), st.resetAtEpochSecond());
        }
        sink.denied(d.policy(), d.retryAfterSeconds());
        return DecisionKind.DENIED;
    }

    private static void requireNoConcurrencyPolicy(Plan plan) {
        if (plan.hasConcurrencyPolicy()) {
            throw new IllegalArgumentException("plan " + plan.name()
                    + ": has a concurrency policy, whose slot is given back with release(key, Allowed); use decide");
        }
    }

    /** The longest pause after a lost compare-and-set, in {@link Thread#onSpinWait()} calls (about 1 µs). */
    private static final int MAX_SPINS = 64;

    /**
     * After a lost compare-and-set on a key's state: spin {@code spins} times, then return the next
     * pause (doubled, at most {@value #MAX_SPINS}). Without it two threads on one hot key retry at once
     * and take the state's cache line from each other on every attempt; with it the winner's next
     * updates find the line still in its own cache. Resilience4j's {@code AtomicRateLimiter} backs off
     * the same way but parks ({@code parkNanos(1)}, tens of µs to ms on a busy machine); a spin keeps
     * the loser's wait around a microsecond.
     */
    private static int backOff(int spins) {
        for (int i = 0; i < spins; i++) {
            Thread.onSpinWait();
        }
        return Math.min(spins << 1, MAX_SPINS);
    }

    /** Marker for "this policy refuses"; distinct from every stored value (which are ≥ 0). */
    private static final long DENIED = Long.MIN_VALUE + 1;

    private static long admit(Plan plan, int i, long value, long cost, long micros, long wall) {
        // an index test rather than a type switch: this is the hot path
        if (plan.isBurst(i)) {
            GcraParams p = plan.gcraParams(i);
            long next = Gcra.admit(p, value, p.ticksOf(micros), cost);
            return next == Gcra.DENIED ? DENIED : next;
        }
        if (plan.isConcurrency(i)) {
            // value = requests in flight; the cost is one slot
            return value + cost > plan.policy(i).quota() ? DENIED : value + cost;
        }
        QuotaPolicy q = (QuotaPolicy) plan.policy(i);
        long next = QuotaCounter.admit(value, q.window().windowIdAt(quotaWall(wall)), cost, q.quota());
        return next == QuotaCounter.DENIED ? DENIED : next;
    }

    /** {@code wall} when no wall clock was read: the plan has no quota policy. */
    private static final long NO_WALL = Long.MIN_VALUE;

    /**
     * The wall clock of a call on a plan with a quota policy, in epoch seconds (UTC): the callers read
     * it ({@link TimeSource#epochSecond()}, cheaper than an {@link Instant}) exactly when
     * {@link Plan#hasQuotaPolicy()}, so a quota policy's step always has it.
     */
    private static long quotaWall(long wall) {
        if (wall == NO_WALL) {
            throw new IllegalStateException("wall: read for every plan with a quota policy");
        }
        return wall;
    }

    /**
     * A denial's exact wait needs the wall clock to the nanosecond: read it again, in the second the
     * decision was made in ({@code wall}); if that second has passed since, its start (so the window
     * and the wait agree with the decision, the wait at most a second long).
     */
    private @Nullable Instant preciseWall(long wall) {
        if (wall == NO_WALL) {
            return null;
        }
        Instant now = time.now();
        return now.getEpochSecond() == wall ? now : Instant.ofEpochSecond(wall);
    }

    private static Denied denied(Plan plan, Costs costs, long[] values, long micros, long wall,
            @Nullable Instant preciseWall) {
        int n = plan.size();
        List<Policy> violated = new ArrayList<>(1);
        @Nullable Policy longest = null;
        Duration longestWait = Duration.ZERO;
        for (int i = 0; i < n; i++) {
            Policy policy = plan.policy(i);
            Duration wait = waitFor(plan, i, values[i], costs.costFor(policy), micros, wall, preciseWall);
            if (!wait.isZero()) {
                violated.add(policy);
                if (wait.compareTo(longestWait) > 0) {
                    longest = policy;
                    longestWait = wait;
                }
            }
        }
        Policy denying = Objects.requireNonNull(longest, "denied: called when a policy refused");
        return new Denied(plan, denying, longestWait, violated, states(plan, values, micros, wall));
    }

    /** Zero when the policy admits {@code cost} now; otherwise the exact time until it would. */
    private static Duration waitFor(Plan plan, int i, long value, long cost, long micros, long wall,
            @Nullable Instant preciseWall) {
        return switch (plan.policy(i)) {
            case BurstPolicy b -> {
                GcraParams p = plan.gcraParams(i);
                long ticks = Gcra.waitTicks(p, value, p.ticksOf(micros), cost);
                yield ticks == 0 ? Duration.ZERO : Duration.ofNanos(Gcra.ceilMicros(p, ticks) * 1000);
            }
            case QuotaPolicy q -> {
                Instant now = Objects.requireNonNull(preciseWall, "preciseWall: read with the wall second");
                long current = q.window().windowIdAt(quotaWall(wall));
                if (QuotaCounter.admit(value, current, cost, q.quota()) != QuotaCounter.DENIED) {
                    yield Duration.ZERO;
                }
                long end = q.window().endEpochSecond(QuotaCounter.effectiveWindow(value, current));
                Duration wait = Duration.between(now, Instant.ofEpochSecond(end));
                // a window can only refuse before its end; guard against a zero wait all the same
                yield wait.isNegative() || wait.isZero() ? Duration.ofSeconds(1) : wait;
            }
            case ConcurrencyPolicy c -> value + cost > c.quota()
                    ? Duration.ofSeconds(ConcurrencyPolicy.RETRY_AFTER_SECONDS) : Duration.ZERO;
        };
    }

    private static List<PolicyState> states(Plan plan, long[] values, long micros, long wall) {
        PolicyState[] out = new PolicyState[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = stateOf(plan, i, values[i], micros, wall);
        }
        return List.of(out);
    }

    private static PolicyState stateOf(Plan plan, int i, long value, long micros, long wall) {
        StateOf built = new StateOf();
        emit(plan, i, value, micros, wall, built);
        return Objects.requireNonNull(built.state, "emit gives every policy's state");
    }

    /** Builds the one {@link PolicyState} {@link #emit} gives (scalar-replaced once inlined). */
    private static final class StateOf implements PolicyStateSink {
        @Nullable PolicyState state;

        @Override
        public void state(Policy policy, long remaining, long resetSeconds, long used, long resetAtEpochSecond) {
            state = new PolicyState(policy, remaining, resetSeconds, used, resetAtEpochSecond);
        }
    }

    /** Policy {@code i}'s standing for the stored {@code value}: {@code r}, {@code t}, used, reset_at. */
    private static void emit(Plan plan, int i, long value, long micros, long wall, PolicyStateSink sink) {
        if (plan.isBurst(i)) {
            GcraParams p = plan.gcraParams(i);
            long now = p.ticksOf(micros);
            long remaining = Gcra.remaining(p, value, now);
            Policy b = plan.policy(i);
            sink.state(b, remaining, Gcra.resetSeconds(p, value, now), b.quota() - remaining, PolicyState.NO_RESET_AT);
            return;
        }
        if (plan.isConcurrency(i)) {
            Policy c = plan.policy(i);
            sink.state(c, Math.max(0, c.quota() - value), 0, value, PolicyState.NO_RESET_AT);
            return;
        }
        QuotaPolicy q = (QuotaPolicy) plan.policy(i);
        CalendarWindow window = q.window();
        long now = quotaWall(wall);
        long current = window.windowIdAt(now);
        long effective = QuotaCounter.effectiveWindow(value, current);
        long used = QuotaCounter.effectiveUsed(value, current);
        // the end is a whole second, so the ceiling of (end − now) is end − floor(now): SPEC §1
        long t = used == 0 ? 0 : Math.max(0, window.endEpochSecond(effective) - now);
        sink.state(q, q.quota() - used, t, used, window.endEpochSecond(effective));
    }

    @Override
    public List<PolicyState> usage(String key, Plan plan) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(plan, "plan");
        long nanos = time.nanoTime();
        long micros = micros(nanos);
        long wall = plan.hasQuotaPolicy() ? time.epochSecond(nanos) : NO_WALL;
        KeyState s = keys.get(key);
        long[] values = s == null ? null : s.snapshot();
        long[] mine = new long[plan.size()];
        if (s != null && values != null) {
            for (int i = 0; i < mine.length; i++) {
                mine[i] = carriedValue(s.plan, values, plan.policy(i));
            }
        }
        return states(plan, mine, micros, wall);
    }

    @Override
    public void refund(String key, Allowed charge) {
        Objects.requireNonNull(key, "key");
        Plan plan = charge.plan();
        long micros = micros();
        for (;;) {
            KeyState s = keys.get(key);
            if (s == null || !s.plan.equals(plan)) {
                return; // forgotten because full, or re-planned since: nothing of this charge is left
            }
            long[] cur = s.snapshot();
            if (cur == null) {
                keys.remove(key, s);
                continue;
            }
            long[] next = cur.clone();
            for (int i = 0; i < next.length; i++) {
                next[i] = refunded(plan, i, cur[i], charge, micros);
            }
            if (Arrays.equals(cur, next) || s.compareAndSet(cur, next)) {
                return;
            }
        }
    }

    private static long refunded(Plan plan, int i, long value, Allowed charge, long micros) {
        Policy policy = plan.policy(i);
        long cost = charge.costs().costFor(policy);
        return switch (policy) {
            case BurstPolicy b -> {
                GcraParams p = plan.gcraParams(i);
                yield Gcra.refund(p, value, p.ticksOf(micros), cost);
            }
            case QuotaPolicy q -> {
                long chargedEnd = charge.states().get(i).resetAtEpochSecond();
                yield QuotaCounter.refund(value, q.window().windowIdAt(chargedEnd - 1), cost);
            }
            case ConcurrencyPolicy c -> value; // slots come back through release(), once the request ends
        };
    }

    @Override
    public void release(String key, Allowed charge) {
        Objects.requireNonNull(key, "key");
        Plan plan = charge.plan();
        if (!plan.hasConcurrencyPolicy()) {
            return;
        }
        for (;;) {
            KeyState s = keys.get(key);
            if (s == null) {
                return; // a key holding a slot is never full, so never evicted: nothing is held
            }
            long[] cur = s.snapshot();
            if (cur == null) {
                keys.remove(key, s); // retired by a reload in progress: help, then find the new state
                continue;
            }
            long[] next = cur.clone();
            boolean changed = false;
            for (int i = 0; i < plan.size(); i++) {
                if (!plan.isConcurrency(i)) {
                    continue;
                }
                // by name and equality: a reload that kept the policy carried the count over
                int j = s.plan == plan ? i : s.plan.indexOf(plan.policy(i).name());
                if (j >= 0 && s.plan.policy(j).equals(plan.policy(i)) && next[j] > 0) {
                    next[j]--;
                    changed = true;
                }
            }
            if (!changed || s.compareAndSet(cur, next)) {
                return;
            }
        }
    }

    /** Always {@code true}: in-flight counts live in the key's state. */
    @Override
    public boolean supportsConcurrencyPolicies() {
        return true;
    }

    /**
     * Forgets every key whose policies are all full now (burst bucket refilled, nothing used in the
     * current quota window). Safe to call at any time from any thread (an edge may schedule it); the
     * store also calls it itself, see the class comment.
     *
     * @return how many keys were forgotten
     */
    public int evictFull() {
        return evictFull(null);
    }

    /** {@link #evictFull()}, sparing {@code spared}: the key whose fresh (so full) state was just inserted. */
    private int evictFull(@Nullable KeyState spared) {
        long micros = micros();
        Instant wall = time.now();
        int evicted = 0;
        for (Map.Entry<String, KeyState> e : keys.entrySet()) {
            KeyState s = e.getValue();
            if (s != spared && s.retireIfFull(micros, wall)) {
                keys.remove(e.getKey(), s);
                evicted++;
            }
        }
        return evicted;
    }

    /** The state object held for {@code key}, or {@code null}: only for the footprint measurement. */
    @Nullable Object stateObjectForMeasurement(String key) {
        return keys.get(key);
    }

    private long micros() {
        return micros(time.nanoTime());
    }

    /** {@code nanos}, a reading of {@link TimeSource#nanoTime()}, as microseconds since the origin. */
    private long micros(long nanos) {
        long rel = nanos - originNanos;
        return rel <= 0 ? 0 : rel / 1000;
    }

    private KeyState stateFor(String key, Plan plan) {
        for (;;) {
            KeyState s = keys.get(key);
            if (s == null) {
                KeyState fresh = KeyState.fresh(plan, null, null);
                s = keys.putIfAbsent(key, fresh);
                if (s == null) {
                    // spare it: a sweep evicting the state it returns would send the caller round again,
                    // for ever when the sweep threshold is 1 or 2
                    maybeSweep(fresh);
                    return fresh;
                }
            }
            if (s.plan == plan || s.plan.equals(plan)) {
                return s;
            }
            // the key moved to another plan (a configuration reload): carry over the policies both share
            long[] old = s.retire();
            KeyState moved = KeyState.fresh(plan, s.plan, old);
            // a racing decide may already have removed the retired state: then install ours if we
            // hold its last values (null means a sweep or another reload retired it first)
            if (keys.replace(key, s, moved) || (old != null && keys.putIfAbsent(key, moved) == null)) {
                return moved;
            }
        }
    }

    private void maybeSweep(KeyState spared) {
        if (keys.size() < sweepThreshold || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            evictFull(spared);
            sweepThreshold = (int) Math.min(Integer.MAX_VALUE, Math.max(minSweepThreshold, 2L * keys.size()));
        } finally {
            sweeping.set(false);
        }
    }

    /** The value {@code policy} had in {@code values} of {@code from}, or 0 (fresh) if it had none. */
    private static long carriedValue(@Nullable Plan from, long @Nullable [] values, Policy policy) {
        if (from == null || values == null) {
            return 0;
        }
        int j = from.indexOf(policy.name());
        return j >= 0 && from.policy(j).equals(policy) ? values[j] : 0;
    }

    /** One key's state; the plan it was built for says what each slot means. */
    private abstract static sealed class KeyState permits Single, Pair, Multi {
        final Plan plan;

        KeyState(Plan plan) {
            this.plan = plan;
        }

        static KeyState fresh(Plan plan, @Nullable Plan from, long @Nullable [] fromValues) {
            long[] values = new long[plan.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = carriedValue(from, fromValues, plan.policy(i));
            }
            return switch (values.length) {
                case 1 -> new Single(plan, values[0]);
                case 2 -> new Pair(plan, values[0], values[1]);
                default -> new Multi(plan, values);
            };
        }

        /** The current values, or {@code null} when retired. */
        abstract long @Nullable [] snapshot();

        abstract boolean compareAndSet(long[] expected, long[] next);

        /** Retires this state and returns its last values ({@code null} if it was already retired). */
        abstract long @Nullable [] retire();

        /** Retires this state if every policy is full at the given time; true if it did. */
        abstract boolean retireIfFull(long micros, Instant wall);

        boolean isFull(long[] values, long micros, Instant wall) {
            for (int i = 0; i < values.length; i++) {
                boolean full = switch (plan.policy(i)) {
                    case BurstPolicy b -> {
                        GcraParams p = plan.gcraParams(i);
                        yield Gcra.isFull(values[i], p.ticksOf(micros));
                    }
                    case QuotaPolicy q -> QuotaCounter.isFull(values[i], q.window().windowIdAt(wall));
                    case ConcurrencyPolicy c -> values[i] == 0;
                };
                if (!full) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A one-policy plan: the state is one {@code long}, updated in place by compare-and-set. */
    private static final class Single extends KeyState {
        static final VarHandle VALUE;

        static {
            try {
                VALUE = MethodHandles.lookup().findVarHandle(Single.class, "value", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        volatile long value;

        Single(Plan plan, long value) {
            super(plan);
            this.value = value;
        }

        @Override
        long @Nullable [] snapshot() {
            long v = value;
            return v == RETIRED ? null : new long[] {v};
        }

        @Override
        boolean compareAndSet(long[] expected, long[] next) {
            return VALUE.compareAndSet(this, expected[0], next[0]);
        }

        @Override
        long @Nullable [] retire() {
            long v = (long) VALUE.getAndSet(this, RETIRED);
            return v == RETIRED ? null : new long[] {v};
        }

        @Override
        boolean retireIfFull(long micros, Instant wall) {
            long v = value;
            return v != RETIRED && isFull(new long[] {v}, micros, wall) && VALUE.compareAndSet(this, v, RETIRED);
        }
    }

    /**
     * A two-policy plan: two {@code long} fields guarded by a version (a sequence lock). A decision
     * reads the version (even: no write in progress), both values, computes, then takes the version
     * from even {@code v} to odd {@code v + 1} by compare-and-set, which succeeds only if nothing was
     * written since it read, stores both values and publishes {@code v + 2}. So both policies change
     * together or not at all (SPEC §3.3) and nothing is allocated; a denial writes nothing and
     * checks, after its reads, that the version did not move. A writer holds the odd version for two
     * stores only; a reader finding it odd spins like a lost compare-and-set.
     */
    private static final class Pair extends KeyState {
        static final VarHandle VERSION;

        static {
            try {
                VERSION = MethodHandles.lookup().findVarHandle(Pair.class, "version", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Odd and never released: the state is retired. */
        static final long RETIRED_VERSION = -1;

        volatile long version;
        /** Written only while holding an odd version; read between two reads of an even one. */
        long first;
        long second;

        Pair(Plan plan, long first, long second) {
            super(plan);
            this.first = first;
            this.second = second;
            this.version = 0; // a volatile write after the fields: publishes them
        }

        /** Whether the version is still {@code version}, after this thread's reads of the fields. */
        boolean unchangedSince(long version) {
            VarHandle.acquireFence(); // the field reads above are not moved below the version read
            return this.version == version;
        }

        /** Stores both values if nothing was written since {@code version} (even) was read. */
        boolean store(long version, long first, long second) {
            if (!VERSION.compareAndSet(this, version, version + 1)) {
                return false;
            }
            this.first = first;
            this.second = second;
            VERSION.setRelease(this, version + 2);
            return true;
        }

        /** Waits for an even version (or retirement) and returns it. */
        private long stableVersion() {
            for (int spins = 1;; spins = backOff(spins)) {
                long v = version;
                if (v == RETIRED_VERSION || (v & 1) == 0) {
                    return v;
                }
            }
        }

        @Override
        long @Nullable [] snapshot() {
            for (;;) {
                long v = stableVersion();
                if (v == RETIRED_VERSION) {
                    return null;
                }
                long a = first;
                long b = second;
                if (unchangedSince(v)) {
                    return new long[] {a, b};
                }
            }
        }

        @Override
        boolean compareAndSet(long[] expected, long[] next) {
            for (;;) {
                long v = stableVersion();
                if (v == RETIRED_VERSION) {
                    return false;
                }
                long a = first;
                long b = second;
                if (!unchangedSince(v)) {
                    continue;
                }
                if (a != expected[0] || b != expected[1]) {
                    return false;
                }
                if (store(v, next[0], next[1])) {
                    return true;
                }
            }
        }

        @Override
        long @Nullable [] retire() {
            for (;;) {
                long v = stableVersion();
                if (v == RETIRED_VERSION) {
                    return null;
                }
                long a = first;
                long b = second;
                if (VERSION.compareAndSet(this, v, RETIRED_VERSION)) {
                    return new long[] {a, b};
                }
            }
        }

        @Override
        boolean retireIfFull(long micros, Instant wall) {
            long v = stableVersion();
            if (v == RETIRED_VERSION) {
                return false;
            }
            long a = first;
            long b = second;
            return unchangedSince(v) && isFull(new long[] {a, b}, micros, wall)
                    && VERSION.compareAndSet(this, v, RETIRED_VERSION);
        }
    }

    /** A plan of three or more policies: an immutable {@code long[]} swapped by compare-and-set. */
    private static final class Multi extends KeyState {
        static final VarHandle SLOTS;

        static {
            try {
                SLOTS = MethodHandles.lookup().findVarHandle(Multi.class, "slots", long[].class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        volatile long[] slots;

        Multi(Plan plan, long[] slots) {
            super(plan);
            this.slots = slots;
        }

        @Override
        long @Nullable [] snapshot() {
            long[] v = slots;
            return v == RETIRED_SLOTS ? null : v;
        }

        @Override
        boolean compareAndSet(long[] expected, long[] next) {
            return SLOTS.compareAndSet(this, expected, next);
        }

        @Override
        long @Nullable [] retire() {
            long[] v = (long[]) SLOTS.getAndSet(this, RETIRED_SLOTS);
            return v == RETIRED_SLOTS ? null : v;
        }

        @Override
        boolean retireIfFull(long micros, Instant wall) {
            long[] v = slots;
            return v != RETIRED_SLOTS && isFull(v, micros, wall) && SLOTS.compareAndSet(this, v, RETIRED_SLOTS);
        }
    }
}
