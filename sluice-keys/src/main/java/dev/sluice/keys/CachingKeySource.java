package dev.sluice.keys;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.sluice.edge.keys.KeyAdministration.KeyStoreException;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.edge.keys.KeyLookup;
import dev.sluice.edge.keys.KeySource;
import dev.sluice.edge.keys.StoredKey;
import dev.sluice.time.TimeSource;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge's in-memory view of a key store ({@link KeySource}): bounded, hit path without I/O, misses
 * looked up on its own threads, unknown tokens remembered, and a budget of lookups per second so a flood
 * of random tokens cannot reach the database faster than that.
 *
 * <ul>
 *   <li><b>Hit</b>: the token's hash ({@link KeyHashing}) is in the known cache (Caffeine, W-TinyLFU, at
 *       most {@code cache-size} keys): an already-completed future, no allocation, no I/O.</li>
 *   <li><b>Known unknown</b>: the hash is in the unknown cache (at most {@code unknown-cache-size}, each for
 *       {@code unknown-ttl}): {@link KeyLookup#UNKNOWN} at once.</li>
 *   <li><b>Miss</b>: one lookup per hash however many requests wait for it (coalesced), on a bounded pool
 *       of {@code pool-size} threads, if the budget ({@code miss-lookups-per-second}, a token bucket one
 *       second deep) has a token and the store did not just fail; otherwise
 *       {@link KeyLookup.Unavailable} at once (503 {@code key_store_unavailable} with Retry-After).</li>
 *   <li><b>Changes</b>: {@link #changed(String)} (from the backend's feed: {@code LISTEN/NOTIFY}, Redis
 *       pub/sub) reads a cached key again in the background and forgets the hash as unknown;
 *       {@link #resync()} (after the feed was down) reads every cached key again.</li>
 * </ul>
 * The store going away leaves cached keys answering; only misses get 503. {@link #close()} stops the lookup
 * threads and closes the backend (its connections and its change feed). Thread-safe.
 */
public final class CachingKeySource implements KeySource, KeyChanges, MeterBinder {

    private static final Logger LOG = LoggerFactory.getLogger(CachingKeySource.class);
    /** After a failed lookup, misses are answered 503 at once for this long rather than queued. */
    private static final long DOWN_HOLD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final KeyBackend backend;
    private final KeyHashing hashing;
    private final TimeSource time;
    private final Duration retryAfter;
    private final Cache<String, CompletableFuture<KeyLookup>> known;
    private final Cache<String, Boolean> unknown;
    private final ConcurrentHashMap<String, CompletableFuture<KeyLookup>> inFlight = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor lookups;
    private final MissBudget budget;
    private final CompletableFuture<KeyLookup> unknownAnswer = CompletableFuture.completedFuture(KeyLookup.UNKNOWN);
    private final CompletableFuture<KeyLookup> overBudget;
    private final CompletableFuture<KeyLookup> storeDown;
    private volatile long downUntilNanos;
    private volatile boolean up = true;
    private final AtomicBoolean closed = new AtomicBoolean();

    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong unknownHits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong queries = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    /**
     * @param backend where misses are read
     * @param hashing how tokens are hashed (the store's)
     * @param config sizes, budget, Retry-After, pool size
     * @param time the clock of the miss budget
     */
    public CachingKeySource(KeyBackend backend, KeyHashing hashing, KeyStoreConfig config, TimeSource time) {
        this.backend = backend;
        this.hashing = hashing;
        this.time = time;
        this.retryAfter = config.unavailableRetryAfter();
        this.known = Caffeine.newBuilder().maximumSize(config.cacheSize()).executor(Runnable::run).build();
        this.unknown = Caffeine.newBuilder().maximumSize(config.unknownCacheSize())
                .expireAfterWrite(config.unknownTtl()).executor(Runnable::run).build();
        AtomicInteger n = new AtomicInteger();
        this.lookups = new ThreadPoolExecutor(config.poolSize(), config.poolSize(), 30, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(Math.max(16, config.missLookupsPerSecond())), r -> {
                    Thread t = new Thread(r, "sluice-keys-lookup-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        this.lookups.allowCoreThreadTimeOut(true);
        this.budget = new MissBudget(config.missLookupsPerSecond(), time);
        this.overBudget = CompletableFuture.completedFuture(new KeyLookup.Unavailable(retryAfter,
                "lookups of keys not in memory are over miss-lookups-per-second"));
        this.storeDown = CompletableFuture.completedFuture(new KeyLookup.Unavailable(retryAfter,
                "the key store does not answer"));
    }

    @Override
    public CompletableFuture<KeyLookup> lookup(String apiKey) {
        String hash = hashing.hash(apiKey);
        CompletableFuture<KeyLookup> hit = known.getIfPresent(hash);
        if (hit != null) {
            hits.incrementAndGet();
            return hit;
        }
        if (unknown.getIfPresent(hash) != null) {
            unknownHits.incrementAndGet();
            return unknownAnswer;
        }
        CompletableFuture<KeyLookup> pending = inFlight.get(hash);
        if (pending != null) {
            return pending;
        }
        if (time.nanoTime() - downUntilNanos < 0) {
            refused.incrementAndGet();
            return storeDown;
        }
        if (!budget.tryTake()) {
            refused.incrementAndGet();
            return overBudget;
        }
        misses.incrementAndGet();
        CompletableFuture<KeyLookup> mine = new CompletableFuture<>();
        CompletableFuture<KeyLookup> raced = inFlight.putIfAbsent(hash, mine);
        if (raced != null) {
            return raced;
        }
        try {
            lookups.execute(() -> load(hash, mine));
        } catch (RejectedExecutionException e) {
            inFlight.remove(hash, mine);
            refused.incrementAndGet();
            mine.complete(storeDown.join());
        }
        return mine;
    }

    private void load(String hash, CompletableFuture<KeyLookup> into) {
        KeyLookup answer;
        try {
            queries.incrementAndGet();
            Optional<StoredKey> k = backend.lookup(hash);
            if (k.isPresent()) {
                CompletableFuture<KeyLookup> done = CompletableFuture.completedFuture(new KeyLookup.Found(k.get()));
                known.put(hash, done);
                answer = done.join();
            } else {
                unknown.put(hash, Boolean.TRUE);
                answer = KeyLookup.UNKNOWN;
            }
            markUp();
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            markDown(e);
            answer = storeDown.join();
        }
        inFlight.remove(hash, into);
        into.complete(answer);
    }

    private void markDown(RuntimeException e) {
        downUntilNanos = time.nanoTime() + DOWN_HOLD_NANOS;
        if (up) {
            up = false;
            LOG.warn("key store down: {}; cached keys keep answering, others get 503 key_store_unavailable",
                    e instanceof KeyStoreException ? e.getMessage() : e.toString());
        }
    }

    private void markUp() {
        if (!up) {
            up = true;
            LOG.warn("key store up again");
        }
    }

    /** Whether the last lookup reached the store. */
    public boolean up() {
        return up;
    }

    /**
     * The key with hash {@code keyHash} changed in the store: forget it as unknown, and read it again in the
     * background if it is cached (a hit keeps the old binding until the new one is read; a revoked or
     * deleted key leaves the cache). Called by the notification listener.
     */
    @Override
    public void changed(String keyHash) {
        unknown.invalidate(keyHash);
        if (known.getIfPresent(keyHash) == null) {
            return;
        }
        try {
            lookups.execute(() -> {
                try {
                    Optional<StoredKey> k = backend.lookup(keyHash);
                    if (k.isPresent()) {
                        known.put(keyHash, CompletableFuture.completedFuture(new KeyLookup.Found(k.get())));
                    } else {
                        known.invalidate(keyHash);
                        unknown.put(keyHash, Boolean.TRUE);
                    }
                } catch (RuntimeException e) {
                    known.invalidate(keyHash); // stale now; the next request asks again
                }
            });
        } catch (RejectedExecutionException e) {
            known.invalidate(keyHash);
        }
    }

    /**
     * Reads every cached key again and forgets every unknown token: after notifications may have been
     * missed (the listener's connection was down). Blocking; call it off the event loop.
     */
    @Override
    public void resync() {
        unknown.invalidateAll();
        List<String> hashes = new ArrayList<>(known.asMap().keySet());
        if (hashes.isEmpty()) {
            return;
        }
        Map<String, StoredKey> live = backend.lookupAll(hashes);
        for (String h : hashes) {
            StoredKey k = live.get(h);
            if (k == null) {
                known.invalidate(h);
            } else {
                CompletableFuture<KeyLookup> cur = known.getIfPresent(h);
                if (cur == null || !(cur.join() instanceof KeyLookup.Found f) || !f.key().equals(k)) {
                    known.put(h, CompletableFuture.completedFuture(new KeyLookup.Found(k)));
                }
            }
        }
        LOG.info("key cache resynchronised: {} keys read again, {} gone", hashes.size(), hashes.size() - live.size());
    }

    /** Keys in memory now. */
    public long size() {
        return known.estimatedSize();
    }

    /** Lookups that went to the store. */
    public long storeQueries() {
        return queries.get();
    }

    /** Tokens answered 503 without a lookup (budget spent, store down). */
    public long refused() {
        return refused.get();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        FunctionCounter.builder("sluice_key_cache_hits", hits, AtomicLong::get).description("tokens found in memory")
                .register(registry);
        FunctionCounter.builder("sluice_key_cache_unknown_hits", unknownHits, AtomicLong::get)
                .description("tokens remembered as unknown").register(registry);
        FunctionCounter.builder("sluice_key_store_queries", queries, AtomicLong::get)
                .description("lookups sent to the key store").register(registry);
        FunctionCounter.builder("sluice_key_store_refused", refused, AtomicLong::get)
                .description("tokens answered 503 key_store_unavailable without a lookup").register(registry);
        FunctionCounter.builder("sluice_key_store_failures", failures, AtomicLong::get)
                .description("lookups the key store failed").register(registry);
        Gauge.builder("sluice_key_cache_size", known, Cache::estimatedSize).description("keys in memory")
                .register(registry);
        Gauge.builder("sluice_key_store_up", this, s -> s.up ? 1 : 0).description("1 when the last lookup worked")
                .register(registry);
    }

    /**
     * Stops the lookup threads (waiting up to two seconds for a lookup in progress) and closes the backend:
     * its connections and its change feed. Idempotent; a lookup of a token not in memory after it gets
     * {@link KeyLookup.Unavailable}.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        lookups.shutdownNow();
        try {
            if (!lookups.awaitTermination(2, TimeUnit.SECONDS)) {
                LOG.warn("key lookups still running after 2 s at close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        backend.close();
    }

    /** A token bucket of lookups: {@code perSecond} a second, at most one second's worth saved. */
    static final class MissBudget {
        private final long perSecond;
        private final long nanosPerToken;
        private final TimeSource time;
        private long tat;

        MissBudget(long perSecond, TimeSource time) {
            this.perSecond = perSecond;
            this.nanosPerToken = Math.max(1, 1_000_000_000L / perSecond);
            this.time = time;
            this.tat = time.nanoTime();
        }

        /** GCRA: admits when the theoretical arrival time is at most one second ahead of now. */
        synchronized boolean tryTake() {
            long now = time.nanoTime();
            long t = Math.max(tat, now);
            if (t - now > 1_000_000_000L - nanosPerToken) {
                return false;
            }
            tat = t + nanosPerToken;
            return true;
        }

        long perSecond() {
            return perSecond;
        }
    }
}
