package dev.sluice.client.internal.core;

import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.TokenBucketStore;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;

/**
 * How the core keeps a user-supplied store (a Redis-shared bucket or budget, SPEC §4.8) out of its
 * lock: the calls whose answer it needs ({@code tryAcquire}, {@code tryAcquireRetry}) are made by
 * the calling thread after the lock is released (reserve, ask, commit); the calls that only tell the
 * store something ({@code configure}, {@code clamp}, {@code drainAndPause}, {@code recordRequest})
 * are queued in order and sent by one virtual thread, so a store that blocks delays neither the
 * lock's other holders nor the call that caused them.
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

    /** The bucket: reads pass through (the core calls them off its lock), writes are queued. */
    static final class Bucket implements TokenBucketStore {
        private final TokenBucketStore store;
        private final Executor writes;
        private volatile double capacity = Double.POSITIVE_INFINITY;

        Bucket(TokenBucketStore store, Executor writes) {
            this.store = store;
            this.writes = writes;
        }

        @Override
        public long tryAcquire(double cost, long nowNanos) {
            return store.tryAcquire(cost, nowNanos);
        }

        private double configuredPerSecond = Double.NaN;

        @Override
        public void configure(double perSecond, double capacity, long nowNanos) {
            synchronized (this) {
                if (perSecond == configuredPerSecond && capacity == this.capacity) {
                    return; // the pacer re-applies its settings after every answer; the store has them
                }
                configuredPerSecond = perSecond;
                this.capacity = capacity;
            }
            writes.execute(() -> store.configure(perSecond, capacity, nowNanos));
        }

        @Override
        public void clamp(double maxTokens, long nowNanos) {
            writes.execute(() -> store.clamp(maxTokens, nowNanos));
        }

        @Override
        public void drainAndPause(long untilNanos, long nowNanos) {
            writes.execute(() -> store.drainAndPause(untilNanos, nowNanos));
        }

        @Override
        public double available(long nowNanos) {
            return store.available(nowNanos);
        }

        @Override
        public double capacity() {
            return capacity;
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
