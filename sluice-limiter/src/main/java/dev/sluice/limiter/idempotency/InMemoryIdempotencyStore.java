package dev.sluice.limiter.idempotency;

import dev.sluice.time.TimeSource;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The reference {@link IdempotencyStore}: records in this process's memory, one
 * {@link ConcurrentHashMap} entry per {@link IdempotencyKey}, changed only with the map's atomic
 * {@code compute}, so {@code begin}, {@code complete} and {@code abandon} are atomic per key without a
 * lock of ours.
 *
 * <p><b>Time.</b> Leases and retention are measured on {@link TimeSource#nanoTime()}, compared by
 * subtraction (so they survive wall-clock steps and any origin).
 *
 * <p><b>Memory.</b> Expired records are dropped when touched, and by a sweep the store runs itself,
 * amortised, whenever the number of records reaches a threshold (initially {@code sweepThreshold},
 * then twice the records that survived the last sweep). Live records are bounded by what arrives within
 * one retention period, each holding at most the edge's recording bound of body bytes: at the edge's
 * defaults (24 h, 64 KiB) an edge that takes many idempotent writes should use a shared store or a
 * shorter retention.
 *
 * <p>Thread-safe.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore {

    /** The default record count that triggers the first expiry sweep. */
    public static final int DEFAULT_SWEEP_THRESHOLD = 1 << 14;

    private static final Duration FOR_EVER = Duration.ofDays(36_500);

    private final TimeSource time;
    private final ConcurrentHashMap<IdempotencyKey, Entry> records = new ConcurrentHashMap<>();
    private final AtomicLong tokens = new AtomicLong();
    private final int minSweepThreshold;
    private volatile int sweepThreshold;
    private final AtomicBoolean sweeping = new AtomicBoolean();

    /**
     * @param time where leases and retention are measured
     * @param expiresAtNanos monotonic deadline; compared by subtraction
     */
    private record Entry(RequestTarget target, String token, @Nullable RequestFingerprint fingerprint,
            @Nullable RecordedResponse response, long expiresAtNanos) {
        boolean expired(long nowNanos) {
            return nowNanos - expiresAtNanos >= 0;
        }

        boolean inFlight() {
            return response == null;
        }
    }

    /** A store reading {@code time}, with the default sweep threshold. */
    public InMemoryIdempotencyStore(TimeSource time) {
        this(time, DEFAULT_SWEEP_THRESHOLD);
    }

    /**
     * A store reading {@code time} that sweeps expired records once {@code sweepThreshold} are held.
     *
     * @throws IllegalArgumentException if {@code sweepThreshold < 1}
     */
    public InMemoryIdempotencyStore(TimeSource time, int sweepThreshold) {
        this.time = Objects.requireNonNull(time, "time");
        if (sweepThreshold < 1) {
            throw new IllegalArgumentException("sweepThreshold: must be >= 1, was " + sweepThreshold);
        }
        this.minSweepThreshold = sweepThreshold;
        this.sweepThreshold = sweepThreshold;
    }

    @Override
    public Claim begin(IdempotencyKey key, RequestTarget target, Duration lease) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(target, "target");
        long leaseNanos = positiveNanos(lease, "lease");
        long now = time.nanoTime();
        Claim[] result = new Claim[1];
        records.compute(key, (k, e) -> {
            if (e == null || e.expired(now)) {
                String token = "m" + tokens.incrementAndGet();
                result[0] = new Claim.Acquired(token);
                return new Entry(target, token, null, null, now + leaseNanos);
            }
            if (!e.target().equals(target)) {
                result[0] = new Claim.Conflict(e.target());
            } else {
                RequestFingerprint fingerprint = e.fingerprint();
                RecordedResponse response = e.response();
                result[0] = response == null || fingerprint == null
                        ? new Claim.InFlight(e.target()) // no response recorded yet
                        : new Claim.Completed(fingerprint, response);
            }
            return e;
        });
        maybeSweep();
        return result[0];
    }

    @Override
    public boolean complete(IdempotencyKey key, String token, RequestFingerprint fingerprint,
            RecordedResponse response, Duration retention) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(response, "response");
        long retentionNanos = positiveNanos(retention, "retention");
        long now = time.nanoTime();
        boolean[] done = new boolean[1];
        records.computeIfPresent(key, (k, e) -> {
            if (!e.inFlight() || !e.token().equals(token)) {
                return e;
            }
            if (!fingerprint.target().equals(e.target())) {
                throw new IllegalArgumentException("fingerprint: target " + fingerprint.target()
                        + " is not the claimed " + e.target());
            }
            done[0] = true;
            return new Entry(e.target(), token, fingerprint, response, now + retentionNanos);
        });
        return done[0];
    }

    @Override
    public boolean abandon(IdempotencyKey key, String token) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(token, "token");
        boolean[] done = new boolean[1];
        records.computeIfPresent(key, (k, e) -> {
            if (e.inFlight() && e.token().equals(token)) {
                done[0] = true;
                return null;
            }
            return e;
        });
        return done[0];
    }

    @Override
    public Optional<IdempotencyRecord> lookup(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        Entry e = records.get(key);
        if (e == null || e.expired(time.nanoTime())) {
            return Optional.empty();
        }
        return Optional.of(new IdempotencyRecord(e.target(), Optional.ofNullable(e.fingerprint()),
                Optional.ofNullable(e.response())));
    }

    /** Records held now, live or expired but not yet swept (for tests and metrics). */
    public int size() {
        return records.size();
    }

    /** Drops every expired record now. */
    public void evictExpired() {
        long now = time.nanoTime();
        records.forEach((k, e) -> {
            if (e.expired(now)) {
                records.remove(k, e);
            }
        });
    }

    private void maybeSweep() {
        if (records.size() < sweepThreshold || !sweeping.compareAndSet(false, true)) {
            return;
        }
        try {
            evictExpired();
            sweepThreshold = Math.max(minSweepThreshold, 2 * records.size());
        } finally {
            sweeping.set(false);
        }
    }

    private static long positiveNanos(Duration d, String field) {
        Objects.requireNonNull(d, field);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(field + ": must be > 0, was " + d);
        }
        // saturate: a century is "for ever", and keeps now + d far from overflowing the subtraction compare
        return d.compareTo(FOR_EVER) > 0 ? FOR_EVER.toNanos() : d.toNanos();
    }
}
