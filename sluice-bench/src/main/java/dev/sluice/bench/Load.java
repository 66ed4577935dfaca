package dev.sluice.bench;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * A closed-loop load of {@code outstanding} asynchronous calls: each completion starts the next one
 * at once, so exactly that many are in flight. Calls that start after the warm-up and end before the
 * deadline are counted, with their latency.
 */
public final class Load {

    /** Throughput (calls per second) and latency percentiles (microseconds) of one run. */
    public record Result(double perSecond, double p50Micros, double p99Micros, double p999Micros, long failures) {}

    private Load() {}

    /**
     * @param call starts call number {@code i} and returns its completion
     * @throws InterruptedException if interrupted while waiting for the run to end
     */
    public static Result run(int outstanding, long warmupMillis, long measureMillis,
                             IntFunction<CompletionStage<?>> call) throws InterruptedException {
        ConcurrentHistogram latency = new ConcurrentHistogram(3_600_000_000L, 3);
        AtomicLong counted = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong sequence = new AtomicLong();
        long start = System.nanoTime();
        long measureFrom = start + TimeUnit.MILLISECONDS.toNanos(warmupMillis);
        long measureTo = measureFrom + TimeUnit.MILLISECONDS.toNanos(measureMillis);
        CountDownLatch chainsDone = new CountDownLatch(outstanding);
        for (int c = 0; c < outstanding; c++) {
            new Object() {
                void next() {
                    long t0 = System.nanoTime();
                    if (t0 >= measureTo) {
                        chainsDone.countDown();
                        return;
                    }
                    call.apply((int) sequence.getAndIncrement()).whenComplete((v, e) -> {
                        long t1 = System.nanoTime();
                        if (e != null) {
                            failures.incrementAndGet();
                        }
                        if (t0 >= measureFrom && t1 <= measureTo) {
                            counted.incrementAndGet();
                            latency.recordValue(Math.max(1, (t1 - t0) / 1000));
                        }
                        next();
                    });
                }
            }.next();
        }
        if (!chainsDone.await(measureMillis + warmupMillis + 60_000, TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("calls still outstanding a minute after the run ended");
        }
        return new Result(counted.get() / (measureMillis / 1000.0),
                latency.getValueAtPercentile(50), latency.getValueAtPercentile(99),
                latency.getValueAtPercentile(99.9), failures.get());
    }
}
