package dev.sluice.client.internal.core;

import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.TokenBucketStore;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * How the core keeps a user-supplied store (a Redis-shared bucket or budget, SPEC §4.8) out of its
 * lock: the calls whose answer it needs ({@code tryAcquire}, {@code tryAcquireRetry}) are made by
 * the calling thread after the lock is released (reserve, ask, commit); the calls that only tell the
 * store something ({@code clamp}, {@code drainAndPause}, {@code recordRequest}) are queued in order
 * and sent by one virtual thread, so a store that blocks delays neither the lock's other holders nor
 * the call that caused them; {@code configure} is sent before the store's next call of any kind.
 */
final class OffLockStores {

    private OffLockStores() {
    }

    /** Runs tasks one at a time in submission order on a virtual thread started when there is work. */
    static final class SerialExecutor implements Executor {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        private boolean running;

        @Override
        public void execute(Runnable task) {
            synchronized (tasks) {
                tasks.add(task);
                if (running) {
                    return;
                }
                running = true;
            }
            Thread.ofVirtual().name("sluice-store-writes").start(this::drain);
        }

        private void drain() {
            while (true) {
                Runnable next;
                synchronized (tasks) {
                    next = tasks.poll();
                    if (next == null) {
                        running = false;
                        return;
                    }
                }
                try {
                    next.run();
                } catch (RuntimeException e) {
                    System.getLogger("dev.sluice.client").log(System.Logger.Level.WARNING,
                            "a shared store failed to take an update; it is dropped", e);
                }
            }
        }
    }

    /**
     * The bucket. {@code configure} is kept as the pending setting and applied before the next call
     * to the store, read or write, so no token is asked of a store with stale settings (a Redis store
     * sends them with each script call); {@code clamp} and {@code drainAndPause} are queued; reads
     * pass through (the core calls them off its lock).
     */
    static final class Bucket implements TokenBucketStore {
        private final TokenBucketStore store;
        private final Executor writes;
        private final Object applying = new Object();
        private double capacity = Double.POSITIVE_INFINITY;
        private double perSecond = Double.NaN;
        private boolean pending;
        private long pendingNanos;

        Bucket(TokenBucketStore store, Executor writes) {
            this.store = store;
            this.writes = writes;
        }

        @Override
        public long tryAcquire(double cost, long nowNanos) {
            applyPending();
            return store.tryAcquire(cost, nowNanos);
        }

        @Override
        public void configure(double perSecond, double capacity, long nowNanos) {
            synchronized (this) {
                if (perSecond == this.perSecond && capacity == this.capacity) {
                    return; // the pacer re-applies its settings after every answer; the store has them
                }
                this.perSecond = perSecond;
                this.capacity = capacity;
                this.pendingNanos = nowNanos;
                this.pending = true;
            }
            writes.execute(this::applyPending);
        }

        @Override
        public void clamp(double maxTokens, long nowNanos) {
            writes.execute(() -> {
                applyPending();
                store.clamp(maxTokens, nowNanos);
            });
        }

        @Override
        public void drainAndPause(long untilNanos, long nowNanos) {
            writes.execute(() -> {
                applyPending();
                store.drainAndPause(untilNanos, nowNanos);
            });
        }

        @Override
        public double available(long nowNanos) {
            applyPending();
            return store.available(nowNanos);
        }

        @Override
        public synchronized double capacity() {
            return capacity;
        }

        /** Sends the latest setting if the store does not have it yet; one at a time, in order. */
        private void applyPending() {
            synchronized (applying) {
                double r;
                double c;
                long at;
                synchronized (this) {
                    if (!pending) {
                        return;
                    }
                    pending = false;
                    r = perSecond;
                    c = capacity;
                    at = pendingNanos;
                }
                store.configure(r, c, at);
            }
        }
    }

    /** The budget: {@code recordRequest} is queued; {@code tryAcquireRetry} passes through (called off the lock). */
    static final class Budget implements RetryBudgetStore {
        private final RetryBudgetStore store;
        private final Executor writes;

        Budget(RetryBudgetStore store, Executor writes) {
            this.store = store;
            this.writes = writes;
        }

        @Override
        public void recordRequest(long nowNanos) {
            writes.execute(() -> store.recordRequest(nowNanos));
        }

        @Override
        public boolean tryAcquireRetry(long nowNanos) {
            return store.tryAcquireRetry(nowNanos);
        }

        /** Counts a retry the transport made underneath, when the budget has room; nobody waits for it. */
        void countRetryLater(long nowNanos) {
            writes.execute(() -> store.tryAcquireRetry(nowNanos));
        }
    }
}
