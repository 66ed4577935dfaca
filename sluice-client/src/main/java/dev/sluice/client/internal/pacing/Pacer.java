package dev.sluice.client.internal.pacing;

import dev.sluice.client.PacerConfig;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.wire.snapshot.PolicySnapshot;
import dev.sluice.wire.snapshot.PolicySnapshot.PolicyKind;
import dev.sluice.wire.snapshot.RateLimitSnapshot;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The client-side pacer (SPEC §4.6): one token bucket whose rate and capacity follow what the
 * server reports, taken from just before each call starts.
 *
 * <ul>
 *   <li>Rate policies (a burst policy, or a window of a minute or less): the bucket refills at
 *       {@code paceFraction · q / w} with capacity {@code paceFraction · q}, and never holds more
 *       tokens than the server's {@code r}. The most restrictive policy wins (R06). A documented
 *       limit is paced the same way.</li>
 *   <li>Other policies (daily quotas, hourly windows): when {@code r < lowRemainingFraction · q},
 *       the remaining {@code r} are spread over {@code t}: the first of them goes at once, and the
 *       call that takes it starts the spacing (the bucket is emptied and refills at {@code r / t}
 *       until the reset), so none is left unused; when {@code r = 0} the bucket is emptied and
 *       paused until {@code t} plus the reset margin.</li>
 *   <li>A 429 empties the bucket and pauses it for its Retry-After.</li>
 *   <li>A cached response ({@code Age}) is ignored (SPEC §2.5).</li>
 * </ul>
 *
 * <p>Waits derived from a policy's reset are relative to the response's own time (the dialects
 * convert an absolute reset with the response's {@code Date}) and scheduled on the local monotonic
 * clock; a reset the server stated as an absolute time gets the configured reset margin on top
 * (R04), exactly as {@code RateLimitSnapshot.suggestedWait} computes it
 * ({@code PolicySnapshot.resetWait}), so client clock skew cannot make the client wake early.
 *
 * <p>Why the burst is paced too (SPEC §4.6, "a little under the documented number"): a bucket of
 * {@code b} tokens refilled at {@code r} starts at most {@code b + r·Δ} calls in any interval Δ. If
 * the first of them reach the server up to {@code D} late (new connections), the server can see
 * {@code b + r·(Δ + D)} in an interval where its own bucket ({@code B}, {@code R > r}) allows
 * {@code B + R·Δ}: no 429 for any Δ requires {@code b + r·D <= B}. With {@code b = B} no delay at all
 * is tolerated; with {@code b = 0.9·B, r = 0.9·R} delays up to {@code B / (9·R)} are (222 ms for
 * 10/s, burst 20). A call costing more than the paced burst but no more than the server's waits for
 * a full bucket and takes all of it.
 *
 * <p>Cold start. A first burst can reach the server far later than that: new connections on a
 * cold process took 0.6–1 s on loopback in the README's run against the edge, while the client's
 * bucket kept refilling from the moment it sent. So when calls start from a full bucket (the first
 * call, or after the bucket had time to refill), a <em>hold</em> begins: until the first answer
 * of any attempt comes back, calls spend only the tokens the bucket held (one paced burst); when
 * the answer comes, the bucket keeps what the hold left plus the burst margin ({@code B − b}) and
 * pacing resumes from there. The server's bucket started refilling when our first call reached it,
 * which is no later than that answer: everything sent is then at most {@code B + r·(t − answer)},
 * within what the server allows. The price: the refill of a round trip beyond the margin, once per
 * cold start; nothing for round trips up to {@code (B − b) / r} (222 ms for 10/s, burst 20).
 *
 * <p>The probe. While nothing is known of the limit (nothing documented, no usage seed, no answer
 * yet), the first call goes alone and the others wait for its answer, which carries the policies
 * (or a 429's Retry-After) that the pacer then follows. Without it, a fresh client's first burst
 * is spent blind: 30 calls on a key whose burst another client just spent would all meet a 429,
 * and their re-sends would double what reached the server. The price is one round trip, once.
 *
 * <p>Not thread-safe; the owner locks (the store is thread-safe).
 */
public final class Pacer {

    /** A window this short is a rate to pace at, not a quota to ration (seconds). */
    private static final long RATE_WINDOW_MAX_SECONDS = 60;

    private final PacerConfig config;
    private final TokenBucketStore bucket;
    private final Duration resetMargin;
    private double headerPerSecond = Double.POSITIVE_INFINITY;
    private double headerBurst = Double.POSITIVE_INFINITY;
    /** The burst the server allows (documented or reported), not paced: the largest cost it grants. */
    private double serverBurst = Double.POSITIVE_INFINITY;
    private final Map<String, Spread> spreads = new HashMap<>();
    private @Nullable Block block;
    /** Cold start: when this pacer last took tokens, and whether a hold is on with how much left. */
    private boolean everTook;
    private long lastTakeNanos;
    private boolean holding;
    private double holdLeft;
    /** No answer has come back yet, and whether the probe call (sent while nothing is known) is out. */
    private boolean answered;
    private boolean probing;
    /** The bucket's capacity as this pacer configured it (the store is not asked). */
    private double bucketCapacity = Double.POSITIVE_INFINITY;
    /** The store said to wait until then: it is not asked again before (cleared when the rate changes). */
    private boolean storeWait;
    private long storeWaitUntilNanos;
    /** The latest end of a pause this pacer put on the bucket (a shared store may know a later one). */
    private long pausedUntilNanos;
    private boolean paused;

    /** How often a call waiting behind the probe asks again (an answer wakes it sooner). */
    private static final long PROBE_WAIT_NANOS = 10_000_000L;

    /**
     * A remaining-r spread over a policy's reset; expires at the reset. It starts {@code pending}:
     * the first of the remaining {@code r} goes at once (SPEC §4.6), and only the call that takes it
     * starts the spacing.
     */
    private record Spread(@Nullable String policy, PolicyKind kind, double perSecond, long untilNanos,
            java.time.Instant resetAt, long remaining, boolean pending) {

        Spread started() {
            return new Spread(policy, kind, perSecond, untilNanos, resetAt, remaining, false);
        }
    }

    /** Why the bucket is paused, for the error a caller gets if it cannot wait that long. */
    public record Block(@Nullable String policy, PolicyKind kind, long untilNanos, java.time.Instant resetAt) {
    }

    public Pacer(PacerConfig config, TokenBucketStore bucket, Duration resetMargin, long nowNanos) {
        this.config = config;
        this.bucket = bucket;
        this.resetMargin = resetMargin;
        apply(nowNanos);
    }

    /** The default store: an in-memory bucket. */
    public static TokenBucketStore inMemoryStore(long nowNanos) {
        return InMemoryTokenBucket.unlimited(nowNanos);
    }

    /**
     * Takes {@code cost} tokens if available; a cost above the paced burst (but within the
     * server's) takes a full bucket. {@link #beforeTake}, the store's {@code tryAcquire} and
     * {@link #afterTake} in one step.
     *
     * @return 0 when taken, else nanoseconds until they could be
     * @throws IllegalArgumentException when {@code cost} exceeds {@link #capacity()} (R14)
     */
    public long tryAcquire(double cost, long nowNanos) {
        long local = beforeTake(cost, nowNanos);
        if (local != 0) {
            return local;
        }
        double take = takeAmount(cost);
        long wait = bucket.tryAcquire(take, nowNanos);
        afterTake(take, wait, nowNanos);
        return wait;
    }

    /**
     * What the pacer knows without asking its store: a wait (the probe is out, a cold start's hold
     * has nothing left, the store said to wait and that wait is not over), or 0 when the store must
     * be asked for {@link #takeAmount} tokens. An owner that keeps store calls outside its lock calls
     * this under the lock, the store outside it, then {@link #afterTake} under the lock again.
     *
     * @throws IllegalArgumentException when {@code cost} exceeds {@link #capacity()} (R14)
     */
    public long beforeTake(double cost, long nowNanos) {
        double max = capacity();
        if (cost > max) {
            throw new IllegalArgumentException("cost " + cost + " exceeds the burst " + max + ": it could never be granted");
        }
        double take = takeAmount(cost);
        double rate = effectivePerSecond(nowNanos);
        if (!answered && Double.isInfinite(rate) && Double.isInfinite(bucketCapacity)) {
            // nothing is known of the limit yet: one call goes, and its answer says what the limit
            // is (RateLimit-Policy, or a 429's Retry-After) before the rest are spent blind; a round
            // trip once per client, like TCP's slow start (see the class comment)
            if (probing) {
                return PROBE_WAIT_NANOS;
            }
            probing = true;
            return 0;
        }
        if (holding && take > holdLeft + 1e-9) {
            // the server has not answered since this burst began: its bucket may not have started
            // refilling yet, so ours does not count either (see the class comment); ask again after
            // one token's refill, or sooner when an answer ends the hold
            return Math.max(1_000_000L, Double.isInfinite(rate) ? 1_000_000L : (long) Math.ceil(take / rate * 1e9));
        }
        if (storeWait && storeWaitUntilNanos - nowNanos > 0) {
            return storeWaitUntilNanos - nowNanos;
        }
        storeWait = false;
        return 0;
    }

    /** The tokens a call of {@code cost} takes from the bucket: a cost above the paced burst takes all of it. */
    public double takeAmount(double cost) {
        return Math.min(cost, bucketCapacity);
    }

    /**
     * Records the store's answer to taking {@code take} tokens ({@code wait} 0: taken): the cold
     * start's hold, the spreads a take starts, or the wait to honour before asking the store again.
     */
    public void afterTake(double take, long wait, long nowNanos) {
        if (wait != 0) {
            storeWait = true;
            storeWaitUntilNanos = nowNanos + wait;
            return;
        }
        double rate = effectivePerSecond(nowNanos);
        boolean fromFull = !holding && !Double.isInfinite(rate) && !Double.isInfinite(bucketCapacity)
                && (!everTook || (nowNanos - lastTakeNanos) / 1e9 * rate >= bucketCapacity);
        if (fromFull) {
            holding = true;
            holdLeft = bucketCapacity - take;
        } else if (holding) {
            holdLeft -= take;
        }
        everTook = true;
        lastTakeNanos = nowNanos;
        startPendingSpreads(nowNanos);
    }

    /**
     * The call that took the first of a spread's remaining {@code r} starts its spacing: from here
     * the bucket refills at {@code r / t} and holds nothing, so the next of them comes {@code t / r}
     * later (SPEC §4.6: the first goes at once, the rest are spaced over {@code t}, none left unused).
     */
    private void startPendingSpreads(long nowNanos) {
        boolean started = false;
        for (Map.Entry<String, Spread> e : spreads.entrySet()) {
            if (e.getValue().pending()) {
                e.setValue(e.getValue().started());
                started = true;
            }
        }
        if (started) {
            apply(nowNanos);
            bucket.clamp(0.0, nowNanos);
        }
    }

    /**
     * The quota policy whose spread sets the rate in force, while one does: the reason a call the
     * pacer cannot grant within the maximum wait is a quota matter; {@code null} otherwise.
     */
    public @Nullable Block rationedBy(long nowNanos) {
        expireSpreads(nowNanos);
        double base = basePerSecond();
        @Nullable Spread slowest = null;
        for (Spread sp : spreads.values()) {
            if (!sp.pending() && sp.perSecond() < base && (slowest == null || sp.perSecond() < slowest.perSecond())) {
                slowest = sp;
            }
        }
        return slowest == null ? null : new Block(slowest.policy(), slowest.kind(), slowest.untilNanos(),
                slowest.resetAt());
    }

    /** What is left of the rationing quota's {@code r} when {@link #rationedBy} names one, else -1. */
    public long rationedRemaining(long nowNanos) {
        Block b = rationedBy(nowNanos);
        if (b == null) {
            return -1;
        }
        Spread sp = spreads.get(b.policy() == null ? "" : b.policy());
        return sp == null ? -1 : sp.remaining();
    }

    /** Whether a finite rate governs the bucket (documented, reported, or a spread): what a 429's re-send is held to. */
    public boolean paces(long nowNanos) {
        return !Double.isInfinite(effectivePerSecond(nowNanos));
    }

    /**
     * An answer arrived (any: a response or a failure), or nothing is in flight any more: a cold
     * start's hold ends. The bucket keeps at most what the hold left plus the burst margin; the rest
     * of the refill it gained during the hold is dropped (the server's own bucket started refilling
     * no earlier than when it saw the first call, and that was no later than this answer), and
     * pacing resumes from here. Nothing happens when no hold is on.
     */
    public void endHold(long nowNanos) {
        answered = true;
        probing = false;
        releaseHold(nowNanos);
    }

    /**
     * Nothing is in flight any more and no answer will come (the calls were cancelled): a hold ends
     * as in {@link #endHold}, and a probe that got no answer lets the next call probe again.
     */
    public void nothingInFlight(long nowNanos) {
        probing = false;
        releaseHold(nowNanos);
    }

    private void releaseHold(long nowNanos) {
        if (holding) {
            holding = false;
            // what the hold left, plus the burst margin: all sent before the answer is at most one
            // paced burst, so up to the server's burst stays safe (see the class comment)
            double margin = Math.max(0.0, capacity() - bucketCapacity);
            bucket.clamp(Math.max(0.0, holdLeft) + margin, nowNanos);
        }
    }

    /** Whether a cold start's hold is on (tests, diagnostics). */
    public boolean holding() {
        return holding;
    }

    /**
     * The largest cost that can ever be granted: the server's burst (documented or from the
     * headers, not paced), else the bucket's capacity.
     */
    public double capacity() {
        return Double.isInfinite(serverBurst) ? bucketCapacity : serverBurst;
    }

    /** The bucket's capacity: the server's burst paced at {@code paceFraction}. */
    public double pacedCapacity() {
        return bucketCapacity;
    }

    public double available(long nowNanos) {
        return bucket.available(nowNanos);
    }

    /**
     * A lower bound of the nanoseconds until the bucket could grant {@code cost} tokens, known
     * without asking the store: while a pause this pacer put on the bucket lasts, what is left of it
     * plus the refill of {@code cost} at the rate in force (a pause empties the bucket); otherwise 0.
     * It takes nothing. A caller uses it to refuse, before waiting, a call that certainly cannot
     * start in time; the gate decides the rest when the call's turn comes.
     *
     * @return 0 when no pause is known; up to {@code Long.MAX_VALUE / 4} when the tokens never come
     */
    public long readyInNanos(double cost, long nowNanos) {
        if (!paused || pausedUntilNanos - nowNanos <= 0) {
            return 0;
        }
        long pauseLeft = pausedUntilNanos - nowNanos;
        double rate = effectivePerSecond(nowNanos);
        if (Double.isInfinite(rate)) {
            return pauseLeft;
        }
        double refill = Math.ceil(Math.min(cost, bucketCapacity) / rate * 1e9);
        long refillNanos = refill >= Long.MAX_VALUE / 4.0 ? Long.MAX_VALUE / 4 : (long) refill;
        long sum = pauseLeft + refillNanos;
        return sum < 0 || sum > Long.MAX_VALUE / 4 ? Long.MAX_VALUE / 4 : sum;
    }

    /**
     * A quota the server reported spent by its answer alone (a {@code quota_exhausted} problem
     * with only a Retry-After, no RateLimit fields): the bucket is paused until the reset like a
     * spent quota policy, so that later calls are answered locally (R08, SPEC §4.2).
     *
     * @param wait how long until the quota resets, measured as {@code RateLimitSnapshot.suggestedWait}
     * @param resetAt the same moment on the wall clock, for the errors of later calls
     */
    public void onQuotaExhausted(@Nullable String policy, Duration wait, java.time.Instant resetAt, long nowNanos) {
        if (wait.isNegative() || wait.isZero()) {
            return;
        }
        pause(new Block(policy, PolicyKind.QUOTA, nowNanos + saturatingNanos(wait), resetAt), nowNanos);
    }

    /** The policy that paused the bucket, while the pause lasts; {@code null} otherwise. */
    public @Nullable Block block(long nowNanos) {
        if (block != null && nowNanos - block.untilNanos() >= 0) {
            block = null;
        }
        return block;
    }

    /** The refill rate in force (tokens per second; infinite when nothing limits). */
    public double effectivePerSecond(long nowNanos) {
        expireSpreads(nowNanos);
        double rate = basePerSecond();
        for (Spread s : spreads.values()) {
            if (!s.pending()) {
                rate = Math.min(rate, s.perSecond());
            }
        }
        return rate;
    }

    /**
     * Follows the policies of one response (SPEC §4.6), unless it was cached (§2.5) or header
     * following is off.
     *
     * @param wallNow the local wall clock, only to express a reset as an instant for errors
     */
    public void observe(RateLimitSnapshot snapshot, long nowNanos, java.time.Instant wallNow) {
        if (snapshot.cached() || !config.followHeaders() || snapshot.policies().isEmpty()) {
            return;
        }
        answered = true; // the server has said what its limit is: no probe needed
        double rate = Double.POSITIVE_INFINITY;
        double burst = Double.POSITIVE_INFINITY;
        double clampTo = Double.POSITIVE_INFINITY;
        for (PolicySnapshot p : snapshot.policies()) {
            String name = p.name() == null ? "" : p.name();
            if (isRatePolicy(p)) {
                // isRatePolicy has checked that both are present and positive
                long quota = Objects.requireNonNull(p.quota());
                long windowSeconds = Objects.requireNonNull(p.windowSeconds());
                rate = Math.min(rate, config.paceFraction() * quota / windowSeconds);
                burst = Math.min(burst, Math.max(1, quota));
                if (p.remaining() != null) {
                    clampTo = Math.min(clampTo, p.remaining());
                }
                continue;
            }
            // resetWait is present exactly when resetIn is
            Duration resetWait = p.resetWait(resetMargin);
            if (p.remaining() == null || p.resetIn() == null || resetWait == null) {
                continue;
            }
            long resetNanos = saturatingNanos(p.resetIn());
            if (p.remaining() == 0) {
                // the same wait RateLimitSnapshot.suggestedWait uses: + the margin for an absolute reset (R04)
                long until = nowNanos + saturatingNanos(resetWait);
                pause(new Block(p.name(), p.kind(), until, wallNow.plus(resetWait)), nowNanos);
                spreads.remove(name);
            } else if (p.quota() != null && p.remaining() < config.lowRemainingFraction() * p.quota()) {
                double seconds = Math.max(1e-3, p.resetIn().toMillis() / 1000.0);
                Spread before = spreads.get(name);
                boolean pending = before == null || before.pending(); // the first of the r goes at once
                spreads.put(name, new Spread(p.name(), p.kind(), p.remaining() / seconds, nowNanos + resetNanos,
                        wallNow.plus(resetWait), p.remaining(), pending));
            } else {
                spreads.remove(name);
            }
        }
        if (!Double.isInfinite(rate)) {
            headerPerSecond = rate;
            headerBurst = burst;
        }
        apply(nowNanos);
        if (!Double.isInfinite(clampTo)) {
            bucket.clamp(clampTo, nowNanos);
        }
    }

    /**
     * A 429 {@code rate_limited}: empty the bucket, and pause it for {@code retryAfter} when the
     * server gave one (SPEC §4.6). Never called for an overload (R09).
     */
    public void onRateLimited(@Nullable Duration retryAfter, long nowNanos) {
        answered = true;
        long until = retryAfter == null ? nowNanos : nowNanos + saturatingNanos(retryAfter);
        notePause(until, nowNanos);
        storeWait = false;
        bucket.drainAndPause(until, nowNanos);
    }

    private void pause(Block b, long nowNanos) {
        answered = true;
        if (block == null || b.untilNanos() - block.untilNanos() > 0) {
            block = b;
        }
        notePause(b.untilNanos(), nowNanos);
        bucket.drainAndPause(b.untilNanos(), nowNanos);
    }

    /** Remembers the pause as the store does: a later pause never shortens an earlier one. */
    private void notePause(long untilNanos, long nowNanos) {
        if (paused && nowNanos - pausedUntilNanos >= 0) {
            paused = false;
        }
        if (untilNanos - nowNanos > 0 && (!paused || untilNanos - pausedUntilNanos > 0)) {
            pausedUntilNanos = untilNanos;
            paused = true;
        }
    }

    private boolean isRatePolicy(PolicySnapshot p) {
        if (p.quota() == null || p.windowSeconds() == null || p.windowSeconds() <= 0 || p.quota() <= 0) {
            return false;
        }
        if ("concurrent-requests".equals(p.quotaUnit())) {
            return false;
        }
        return p.kind() == PolicyKind.BURST
                || (p.kind() == PolicyKind.UNKNOWN && p.windowSeconds() <= RATE_WINDOW_MAX_SECONDS);
    }

    private double basePerSecond() {
        double rate = headerPerSecond;
        if (config.documentedPerSecond() > 0) {
            rate = Math.min(rate, config.paceFraction() * config.documentedPerSecond());
        }
        return rate;
    }

    /** The smallest burst the server allows (documented, reported), unpaced; +∞ when unknown. */
    private double serverBurst() {
        double burst = headerBurst;
        if (config.documentedBurst() > 0) {
            burst = Math.min(burst, config.documentedBurst());
        }
        return burst;
    }

    private void apply(long nowNanos) {
        double rate = effectivePerSecond(nowNanos);
        serverBurst = serverBurst();
        double burst;
        if (!Double.isInfinite(serverBurst)) {
            burst = Math.max(1, config.paceFraction() * serverBurst); // a margin on the burst too (SPEC §4.6)
        } else if (!Double.isInfinite(basePerSecond())) {
            burst = Math.max(1, Math.floor(basePerSecond())); // no burst known: one second's worth, at the paced rate
        } else if (!Double.isInfinite(rate)) {
            burst = Math.max(1, Math.floor(rate)); // only a spread limits: one second of it
        } else {
            burst = Double.POSITIVE_INFINITY;
        }
        bucketCapacity = burst;
        storeWait = false; // a new rate or capacity: the store's last wait may no longer hold
        bucket.configure(rate, burst, nowNanos);
    }

    private void expireSpreads(long nowNanos) {
        for (Iterator<Spread> it = spreads.values().iterator(); it.hasNext(); ) {
            if (nowNanos - it.next().untilNanos() >= 0) {
                it.remove();
            }
        }
    }

    /** Re-reads expiring spreads into the bucket; the engine calls it before dispatching. */
    public void refresh(long nowNanos) {
        int before = spreads.size();
        expireSpreads(nowNanos);
        if (spreads.size() != before) {
            apply(nowNanos);
        }
    }

    static long saturatingNanos(Duration d) {
        if (d.getSeconds() >= Long.MAX_VALUE / 1_000_000_000L - 1) {
            return Long.MAX_VALUE / 4;
        }
        return Math.min(d.toNanos(), Long.MAX_VALUE / 4);
    }
}
