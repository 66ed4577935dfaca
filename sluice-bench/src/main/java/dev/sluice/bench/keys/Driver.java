package dev.sluice.bench.keys;

import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.ExchangeListener;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Calls an {@link EdgeDecider} from a few threads as an edge's event loops would: a decision that completes at
 * once is handled on the calling thread; one that waits on a key lookup is handled where it completes while the
 * thread goes on with the next request, up to {@link #MAX_IN_FLIGHT} waiting per thread (connections waiting on
 * their answer; a thread with that many waiting sleeps 20 µs at a time). A forwarded request is ended as an upstream {@code 200} would end it (its listeners told), so
 * the shedder's slots are given back.
 */
final class Driver {

    static final int MAX_IN_FLIGHT = 256;

    private Driver() {}

    /** Decides {@code heads[stream[i]]} for every i, split over {@code threads}; returns when all are answered. */
    static Outcomes run(EdgeDecider decider, RequestHead[] heads, int[] stream, int threads) throws InterruptedException {
        Outcomes out = new Outcomes();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int first = t;
            workers.add(Thread.ofPlatform().name("keys-bench-" + t).start(() -> {
                AtomicInteger inFlight = new AtomicInteger();
                awaitQuietly(start);
                long cpu0 = CpuMeter.threadNanos();
                for (int i = first; i < stream.length; i += threads) {
                    decide(decider, heads[stream[i]], out, inFlight);
                }
                while (inFlight.get() > 0) {
                    idle();
                }
                out.cpuNanos.add(CpuMeter.threadNanos() - cpu0);
            }));
        }
        long t0 = System.nanoTime();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        out.nanos.add(System.nanoTime() - t0);
        return out;
    }

    /**
     * Random keys (or, with {@code distinct} > 0, that many fixed random keys in turn) for {@code duration}, as
     * fast as the decision answers them.
     */
    static Outcomes flood(EdgeDecider decider, int threads, Duration duration, int distinct) throws InterruptedException {
        Outcomes out = new Outcomes();
        RequestHead[] fixed = new RequestHead[distinct];
        SplittableRandom seeds = new SplittableRandom(42);
        for (int i = 0; i < distinct; i++) {
            fixed[i] = head(seeds);
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        long t0 = System.nanoTime();
        long end = t0 + duration.toNanos();
        for (int t = 0; t < threads; t++) {
            SplittableRandom random = new SplittableRandom(1_000 + t);
            int offset = t;
            workers.add(Thread.ofPlatform().name("keys-flood-" + t).start(() -> {
                AtomicInteger inFlight = new AtomicInteger();
                awaitQuietly(start);
                for (long n = offset; System.nanoTime() < end; n++) {
                    RequestHead h = distinct > 0 ? fixed[(int) (n % distinct)] : head(random);
                    decide(decider, h, out, inFlight);
                }
                while (inFlight.get() > 0) {
                    idle();
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        out.nanos.add(System.nanoTime() - t0);
        return out;
    }

    private static RequestHead head(SplittableRandom random) {
        String token = "sk_" + Long.toHexString(random.nextLong() | Long.MIN_VALUE)
                + Long.toHexString(random.nextLong() | Long.MIN_VALUE);
        return RequestHead.of("GET", "/v1/items", "Bearer " + token, "127.0.0.1");
    }

    private static void decide(EdgeDecider decider, RequestHead head, Outcomes out, AtomicInteger inFlight) {
        CompletableFuture<Verdict> f = decider.decide(head).toCompletableFuture();
        if (f.isDone()) {
            out.record(f.join());
            return;
        }
        while (inFlight.get() >= MAX_IN_FLIGHT) {
            idle();
        }
        inFlight.incrementAndGet();
        f.whenComplete((v, e) -> {
            if (e != null) {
                out.failed.increment();
            } else {
                out.record(v);
            }
            inFlight.decrementAndGet();
        });
    }

    /**
     * Waits for lookups without burning CPU, as an event loop with nothing to do sleeps in its selector: the CPU
     * time of a round is the work done, not the wait.
     */
    private static void idle() {
        LockSupport.parkNanos(20_000);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** What the callers got: forwarded (admitted), or the edge's own answer by status; and the time taken. */
    static final class Outcomes {
        final LongAdder forwarded = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder nanos = new LongAdder();
        /** CPU time of the calling threads, plus what the caller adds (lookup threads, database backends) */
        final LongAdder cpuNanos = new LongAdder();
        private final Map<Integer, LongAdder> answers = new ConcurrentHashMap<>();
        private volatile String retryAfter = "—";

        void record(Verdict v) {
            switch (v) {
                case Verdict.Forward f -> {
                    for (ExchangeListener l : f.listeners()) {
                        l.onUpstreamResponse(200);
                        l.onEnd(true);
                    }
                    forwarded.increment();
                }
                case Verdict.Answer a -> {
                    answers.computeIfAbsent(a.response().status(), s -> new LongAdder()).increment();
                    if (a.response().status() == 503 && "—".equals(retryAfter)) {
                        retryAfter = a.response().header("Retry-After").map(s -> s + " s").orElse("none");
                    }
                }
                case Verdict.Replay r -> answers.computeIfAbsent(-1, s -> new LongAdder()).increment();
            }
        }

        void add(Outcomes other) {
            forwarded.add(other.forwarded.sum());
            failed.add(other.failed.sum());
            nanos.add(other.nanos.sum());
            cpuNanos.add(other.cpuNanos.sum());
            other.answers.forEach((k, n) -> answers.computeIfAbsent(k, s -> new LongAdder()).add(n.sum()));
        }

        long status(int status) {
            LongAdder n = answers.get(status);
            return n == null ? 0 : n.sum();
        }

        long total() {
            long t = forwarded.sum() + failed.sum();
            for (LongAdder n : answers.values()) {
                t += n.sum();
            }
            return t;
        }

        double perSecond() {
            return total() / (nanos.sum() / 1e9);
        }

        double perCpuSecond() {
            return total() / (cpuNanos.sum() / 1e9);
        }

        String retryAfter() {
            return retryAfter;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder(String.format("%,d forwarded", forwarded.sum()));
            new TreeMap<>(answers).forEach((k, n) -> sb.append(String.format(", %,d answered %d", n.sum(), k)));
            if (failed.sum() > 0) {
                sb.append(String.format(", %,d failed", failed.sum()));
            }
            return sb.toString();
        }
    }
}
