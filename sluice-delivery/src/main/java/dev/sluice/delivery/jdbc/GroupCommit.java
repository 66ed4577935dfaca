package dev.sluice.delivery.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Group commit. SQLite has one writer at a time and flushes the disk once per commit, so a worker
 * with 16 attempts in flight spends its time waiting for flushes one after another; on PostgreSQL
 * each completion would be a transaction of its own with its own round trips and WAL flush.
 * Here one thread takes every attempt write queued meanwhile (up to {@value #MAX_BATCH}), runs them
 * in one transaction and commits once; each caller waits for that commit before it goes on, so
 * nothing is acknowledged before it is durable. If the batch fails, each write is retried alone,
 * so one bad write fails only its own caller. The store uses one for every attempt-path write on
 * SQLite, and one for completions on PostgreSQL.
 *
 * <p>Lanes: with one thread, one group commits at a time, so a worker's throughput is at most a
 * group per commit latency (on PostgreSQL a round trip plus a WAL flush), however many attempts
 * wait. With {@code lanes > 1} that many threads take groups from the one queue and commit them
 * side by side (PostgreSQL flushes the WAL of concurrent commits together). Writes of different
 * groups then land in no fixed order, so lanes are only for writes that do not depend on each
 * other's order (completions, each fenced to its own row); SQLite, one writer, keeps one lane, in
 * queue order.
 */
final class GroupCommit implements AutoCloseable {
    private static final int MAX_BATCH = 64;

    private record Job<T>(String what, SqlWork<T> work, CompletableFuture<T> result, String sql, Binder binder) {
        Job(String what, SqlWork<T> work, CompletableFuture<T> result) {
            this(what, work, result, null, null);
        }
    }

    /** Sets the parameters of one execution of a statement. */
    interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private final Transactions transactions;
    private final BlockingQueue<Job<?>> queue = new LinkedBlockingQueue<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean closed;

    GroupCommit(Transactions transactions, String threadName) {
        this(transactions, threadName, 1);
    }

    /**
     * @param lanes threads committing groups side by side, at least 1 (see the class comment)
     * @throws IllegalArgumentException if {@code lanes < 1}
     */
    GroupCommit(Transactions transactions, String threadName, int lanes) {
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be >= 1: " + lanes);
        }
        this.transactions = transactions;
        for (int i = 0; i < lanes; i++) {
            Thread thread = new Thread(this::loop, lanes == 1 ? threadName : threadName + "-" + i);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
    }

    /** Runs {@code work} in the next group's transaction and returns its result once committed. */
    <T> T submit(String what, SqlWork<T> work) {
        return submit(new Job<>(what, work, new CompletableFuture<>()));
    }

    /**
     * Runs one execution of the statement {@code sql} in the next group's transaction; the
     * executions of one statement in a group go to the database as one JDBC batch (one round trip
     * on PostgreSQL instead of one each).
     *
     * @return whether it changed exactly one row, once committed
     */
    boolean submitUpdate(String what, String sql, Binder binder) {
        SqlWork<Boolean> alone = c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                return ps.executeUpdate() == 1;
            }
        };
        return submit(new Job<>(what, alone, new CompletableFuture<>(), sql, binder));
    }

    /**
     * {@link #submitUpdate} without waiting: the future completes once the group holding it
     * committed (or fails with the write's error). After {@link #close()} the write runs at once.
     */
    CompletableFuture<Boolean> submitUpdateLater(String what, String sql, Binder binder) {
        SqlWork<Boolean> alone = c -> {
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                binder.bind(ps);
                return ps.executeUpdate() == 1;
            }
        };
        Job<Boolean> job = new Job<>(what, alone, new CompletableFuture<>(), sql, binder);
        if (closed) {
            runAlone(job);
            return job.result();
        }
        queue.add(job);
        if (closed && queue.remove(job)) { // closed meanwhile: nobody will take it
            runAlone(job);
        }
        return job.result();
    }

    private <T> T submit(Job<T> job) {
        String what = job.what();
        SqlWork<T> work = job.work();
        if (closed) {
            return transactions.tx(what, work);
        }
        queue.add(job);
        if (closed && queue.remove(job)) { // closed meanwhile: nobody will take it
            return transactions.tx(what, work);
        }
        try {
            return job.result().join(); // uninterruptible: the write may be committing right now
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private void loop() {
        List<Job<?>> batch = new ArrayList<>(MAX_BATCH);
        while (!closed || !queue.isEmpty()) {
            try {
                Job<?> first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.clear();
                batch.add(first);
                queue.drainTo(batch, MAX_BATCH - 1);
                run(batch);
            } catch (InterruptedException e) {
                closed = true;
            } catch (RuntimeException | Error e) {
                for (Job<?> j : batch) {
                    j.result().completeExceptionally(e);
                }
            }
        }
    }

    private void run(List<Job<?>> batch) {
        if (batch.size() > 1) {
            List<Object> results;
            try {
                results = transactions.tx("group commit", c -> {
                    // in queue order: a completion queued before a claim must land before it, or the
                    // claim could take the row again; consecutive executions of one statement share a batch
                    List<Object> r = new ArrayList<>(java.util.Collections.nCopies(batch.size(), null));
                    int i = 0;
                    while (i < batch.size()) {
                        Job<?> j = batch.get(i);
                        if (j.sql() == null) {
                            r.set(i, j.work().run(c));
                            i++;
                            continue;
                        }
                        int end = i;
                        while (end < batch.size() && j.sql().equals(batch.get(end).sql())) {
                            end++;
                        }
                        try (PreparedStatement ps = c.prepareStatement(j.sql())) {
                            for (int k = i; k < end; k++) {
                                batch.get(k).binder().bind(ps);
                                ps.addBatch();
                            }
                            int[] counts = ps.executeBatch();
                            for (int k = 0; k < counts.length; k++) {
                                if (counts[k] == Statement.SUCCESS_NO_INFO) { // rolled back: each alone
                                    throw new SQLException("the driver did not count the rows of a batch");
                                }
                                r.set(i + k, counts[k] == 1);
                            }
                        }
                        i = end;
                    }
                    return r;
                });
            } catch (RuntimeException e) {
                results = null; // rolled back whole: fall through to one transaction each
            }
            if (results != null) {
                for (int i = 0; i < batch.size(); i++) {
                    complete(batch.get(i), results.get(i));
                }
                return;
            }
        }
        for (Job<?> j : batch) {
            runAlone(j);
        }
    }

    private <T> void runAlone(Job<T> j) {
        try {
            j.result().complete(transactions.tx(j.what(), j.work()));
        } catch (RuntimeException | Error e) {
            j.result().completeExceptionally(e);
        }
    }

    @SuppressWarnings("unchecked")
    private <T> void complete(Job<T> j, Object result) {
        j.result().complete((T) result);
    }

    /** Writes waiting for the next group (for tests). */
    int queued() {
        return queue.size();
    }

    /** Commits what is queued and stops the thread. */
    @Override
    public void close() {
        closed = true; // no interrupt: it could fail a commit in progress; the poll ends in 100 ms
        try {
            for (Thread thread : threads) {
                thread.join(10_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Job<?> left;
        while ((left = queue.poll()) != null) {
            runAlone(left);
        }
    }
}
