package dev.sluice.bench.limiter;

import dev.sluice.bench.Args;
import dev.sluice.bench.Table;
import java.util.List;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs {@link LimiterBenchmarks} case by case, one JMH fork each, all cases once per round and
 * {@code --rounds} rounds (A B C D A B C D …), then prints the raw numbers and the ratios as Markdown.
 * Options: {@code --rounds} (5), {@code --warmup-ms} (500 × 2 iterations), {@code --measure-ms}
 * (500 × 3 iterations).
 */
public final class LimiterRun {

    private record Case(String label, String method, int threads) {}

    private static final List<Case> CASES = List.of(
            new Case("hot key, 1 thread: Sluice", "hotSluice", 1),
            new Case("hot key, 1 thread: Sluice sink", "hotSluiceSink", 1),
            new Case("hot key, 1 thread: Bucket4j", "hotBucket4j", 1),
            new Case("hot key, 1 thread: Bucket4j probe", "hotBucket4jProbe", 1),
            new Case("hot key, 1 thread: Resilience4j", "hotResilience4j", 1),
            new Case("hot key, 1 thread: Guava", "hotGuava", 1),
            new Case("hot key, 1 thread: Sluice tryAcquire", "hotSluiceTryAcquire", 1),
            new Case("hot key, 1 thread: Bucket4j keyed", "hotBucket4jKeyed", 1),
            new Case("hot key, 1 thread: Sluice handle", "hotSluiceHandle", 1),
            new Case("hot key, 1 thread: Sluice handle sink", "hotSluiceHandleSink", 1),
            new Case("hot key, 1 thread: Sluice handle tryAcquire", "hotSluiceHandleTryAcquire", 1),
            new Case("hot key, 2 threads: Sluice", "hotSluice", 2),
            new Case("hot key, 2 threads: Sluice sink", "hotSluiceSink", 2),
            new Case("hot key, 2 threads: Bucket4j", "hotBucket4j", 2),
            new Case("hot key, 2 threads: Bucket4j probe", "hotBucket4jProbe", 2),
            new Case("hot key, 2 threads: Resilience4j", "hotResilience4j", 2),
            new Case("hot key, 2 threads: Guava", "hotGuava", 2),
            new Case("hot key, 2 threads: Sluice tryAcquire", "hotSluiceTryAcquire", 2),
            new Case("hot key, 2 threads: Bucket4j keyed", "hotBucket4jKeyed", 2),
            new Case("hot key, 2 threads: Sluice handle", "hotSluiceHandle", 2),
            new Case("hot key, 2 threads: Sluice handle sink", "hotSluiceHandleSink", 2),
            new Case("hot key, 2 threads: Sluice handle tryAcquire", "hotSluiceHandleTryAcquire", 2),
            new Case("1M keys uniform: Sluice", "uniformSluice", 1),
            new Case("1M keys uniform: Bucket4j", "uniformBucket4j", 1),
            new Case("1M keys Zipf: Sluice", "zipfSluice", 1),
            new Case("1M keys Zipf: Bucket4j", "zipfBucket4j", 1),
            new Case("two policies, hot key: Sluice", "twoPolicySluice", 1),
            new Case("two policies, hot key: Sluice sink", "twoPolicySluiceSink", 1),
            new Case("two policies, hot key: Bucket4j", "twoPolicyBucket4j", 1),
            new Case("two policies, hot key: Bucket4j probe", "twoPolicyBucket4jProbe", 1),
            new Case("two policies, hot key: Sluice tryAcquire", "twoPolicySluiceTryAcquire", 1),
            new Case("two policies, hot key: Sluice handle", "twoPolicySluiceHandle", 1),
            new Case("two policies, hot key: Sluice handle sink", "twoPolicySluiceHandleSink", 1));

    private LimiterRun() {}

    public static String run(Args args) throws RunnerException {
        int rounds = args.integer("rounds", 5);
        int warmupMs = args.integer("warmup-ms", 500);
        int measureMs = args.integer("measure-ms", 500);
        Table table = new Table("ops/µs", true);
        for (int round = 1; round <= rounds; round++) {
            for (Case c : CASES) {
                Options opts = new OptionsBuilder()
                        .include(LimiterBenchmarks.class.getName() + "\\." + c.method() + "$")
                        .threads(c.threads())
                        .forks(1)
                        .warmupIterations(2)
                        .warmupTime(TimeValue.milliseconds(warmupMs))
                        .measurementIterations(3)
                        .measurementTime(TimeValue.milliseconds(measureMs))
                        .jvmArgsAppend("-Xmx3g", "-Xms3g")
                        .verbosity(VerboseMode.SILENT)
                        .build();
                RunResult r = new Runner(opts).runSingle();
                double score = r.getPrimaryResult().getScore();
                table.add(c.label(), score);
                System.err.printf("round %d/%d  %-36s %10.2f ops/µs%n", round, rounds, c.label(), score);
            }
        }
        StringBuilder md = new StringBuilder();
        md.append("### Ratios (median of ").append(rounds).append(" interleaved rounds)\n\n");
        md.append(table.ratioHeader("peer"));
        md.append(table.ratioRow("decide, hot key, 1 thread, vs Bucket4j tryConsume", "hot key, 1 thread: Sluice", "hot key, 1 thread: Bucket4j", 1.2));
        md.append(table.ratioRow("decide, hot key, 1 thread, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 1 thread: Sluice", "hot key, 1 thread: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide, hot key, 1 thread, vs Resilience4j", "hot key, 1 thread: Sluice", "hot key, 1 thread: Resilience4j", 1.2));
        md.append(table.ratioRow("decide, hot key, 1 thread, vs Guava", "hot key, 1 thread: Sluice", "hot key, 1 thread: Guava", 1.2));
        md.append(table.ratioRow("decide into a sink, hot key, 1 thread, vs Bucket4j tryConsume", "hot key, 1 thread: Sluice sink", "hot key, 1 thread: Bucket4j", 1.2));
        md.append(table.ratioRow("decide into a sink, hot key, 1 thread, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 1 thread: Sluice sink", "hot key, 1 thread: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide into a sink, hot key, 1 thread, vs Resilience4j", "hot key, 1 thread: Sluice sink", "hot key, 1 thread: Resilience4j", 1.2));
        md.append(table.ratioRow("decide into a sink, hot key, 1 thread, vs Guava", "hot key, 1 thread: Sluice sink", "hot key, 1 thread: Guava", 1.2));
        md.append(table.ratioRow("decide, hot key, 2 threads, vs Bucket4j tryConsume", "hot key, 2 threads: Sluice", "hot key, 2 threads: Bucket4j", 1.2));
        md.append(table.ratioRow("decide, hot key, 2 threads, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 2 threads: Sluice", "hot key, 2 threads: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide, hot key, 2 threads, vs Resilience4j", "hot key, 2 threads: Sluice", "hot key, 2 threads: Resilience4j", 1.2));
        md.append(table.ratioRow("decide into a sink, hot key, 2 threads, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 2 threads: Sluice sink", "hot key, 2 threads: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide into a sink, hot key, 2 threads, vs Resilience4j", "hot key, 2 threads: Sluice sink", "hot key, 2 threads: Resilience4j", 1.2));
        md.append(table.ratioRow("tryAcquire, hot key, 1 thread, vs Bucket4j", "hot key, 1 thread: Sluice tryAcquire", "hot key, 1 thread: Bucket4j", 1.2));
        md.append(table.ratioRow("tryAcquire, hot key, 2 threads, vs Bucket4j", "hot key, 2 threads: Sluice tryAcquire", "hot key, 2 threads: Bucket4j", 1.2));
        md.append(table.ratioRow("tryAcquire, hot key, 2 threads, vs Resilience4j", "hot key, 2 threads: Sluice tryAcquire", "hot key, 2 threads: Resilience4j", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 1 thread, vs Bucket4j tryConsume", "hot key, 1 thread: Sluice handle", "hot key, 1 thread: Bucket4j", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 1 thread, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 1 thread: Sluice handle", "hot key, 1 thread: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 1 thread, vs Resilience4j", "hot key, 1 thread: Sluice handle", "hot key, 1 thread: Resilience4j", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 1 thread, vs Guava", "hot key, 1 thread: Sluice handle", "hot key, 1 thread: Guava", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 1 thread, vs Bucket4j tryConsume", "hot key, 1 thread: Sluice handle sink", "hot key, 1 thread: Bucket4j", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 1 thread, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 1 thread: Sluice handle sink", "hot key, 1 thread: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 1 thread, vs Resilience4j", "hot key, 1 thread: Sluice handle sink", "hot key, 1 thread: Resilience4j", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 1 thread, vs Guava", "hot key, 1 thread: Sluice handle sink", "hot key, 1 thread: Guava", 1.2));
        md.append(table.ratioRow("tryAcquire on a handle, hot key, 1 thread, vs Bucket4j tryConsume", "hot key, 1 thread: Sluice handle tryAcquire", "hot key, 1 thread: Bucket4j", 1.2));
        md.append(table.ratioRow("tryAcquire on a handle, hot key, 1 thread, vs Resilience4j", "hot key, 1 thread: Sluice handle tryAcquire", "hot key, 1 thread: Resilience4j", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 2 threads, vs Bucket4j tryConsume", "hot key, 2 threads: Sluice handle", "hot key, 2 threads: Bucket4j", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 2 threads, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 2 threads: Sluice handle", "hot key, 2 threads: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 2 threads, vs Resilience4j", "hot key, 2 threads: Sluice handle", "hot key, 2 threads: Resilience4j", 1.2));
        md.append(table.ratioRow("decide on a handle, hot key, 2 threads, vs Guava", "hot key, 2 threads: Sluice handle", "hot key, 2 threads: Guava", Double.NaN));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 2 threads, vs Bucket4j tryConsume", "hot key, 2 threads: Sluice handle sink", "hot key, 2 threads: Bucket4j", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 2 threads, vs Bucket4j tryConsumeAndReturnRemaining", "hot key, 2 threads: Sluice handle sink", "hot key, 2 threads: Bucket4j probe", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 2 threads, vs Resilience4j", "hot key, 2 threads: Sluice handle sink", "hot key, 2 threads: Resilience4j", 1.2));
        md.append(table.ratioRow("decide into a sink on a handle, hot key, 2 threads, vs Guava", "hot key, 2 threads: Sluice handle sink", "hot key, 2 threads: Guava", Double.NaN));
        md.append(table.ratioRow("tryAcquire on a handle, hot key, 2 threads, vs Bucket4j tryConsume", "hot key, 2 threads: Sluice handle tryAcquire", "hot key, 2 threads: Bucket4j", 1.2));
        md.append(table.ratioRow("tryAcquire on a handle, hot key, 2 threads, vs Resilience4j", "hot key, 2 threads: Sluice handle tryAcquire", "hot key, 2 threads: Resilience4j", 1.2));
        md.append(table.ratioRow("two policies, decide on a handle vs Bucket4j two bandwidths", "two policies, hot key: Sluice handle", "two policies, hot key: Bucket4j", 1.2));
        md.append(table.ratioRow("two policies, decide on a handle vs Bucket4j two bandwidths, tryConsumeAndReturnRemaining", "two policies, hot key: Sluice handle", "two policies, hot key: Bucket4j probe", 1.2));
        md.append(table.ratioRow("two policies, decide into a sink on a handle vs Bucket4j two bandwidths, tryConsumeAndReturnRemaining", "two policies, hot key: Sluice handle sink", "two policies, hot key: Bucket4j probe", 1.2));
        md.append(table.ratioRow("tryAcquire, hot key, 1 thread, vs keyed Bucket4j", "hot key, 1 thread: Sluice tryAcquire", "hot key, 1 thread: Bucket4j keyed", Double.NaN));
        md.append(table.ratioRow("tryAcquire, hot key, 2 threads, vs keyed Bucket4j", "hot key, 2 threads: Sluice tryAcquire", "hot key, 2 threads: Bucket4j keyed", Double.NaN));
        md.append(table.ratioRow("decide, hot key, 2 threads, vs Guava", "hot key, 2 threads: Sluice", "hot key, 2 threads: Guava", Double.NaN));
        md.append(table.ratioRow("1M keys uniform vs Bucket4j map", "1M keys uniform: Sluice", "1M keys uniform: Bucket4j", Double.NaN));
        md.append(table.ratioRow("1M keys Zipf vs Bucket4j map", "1M keys Zipf: Sluice", "1M keys Zipf: Bucket4j", Double.NaN));
        md.append(table.ratioRow("two policies, decide vs Bucket4j two bandwidths", "two policies, hot key: Sluice", "two policies, hot key: Bucket4j", 1.2));
        md.append(table.ratioRow("two policies, decide vs Bucket4j two bandwidths, tryConsumeAndReturnRemaining", "two policies, hot key: Sluice", "two policies, hot key: Bucket4j probe", 1.2));
        md.append(table.ratioRow("two policies, decide into a sink vs Bucket4j two bandwidths, tryConsumeAndReturnRemaining", "two policies, hot key: Sluice sink", "two policies, hot key: Bucket4j probe", 1.2));
        md.append(table.ratioRow("two policies, tryAcquire vs Bucket4j two bandwidths", "two policies, hot key: Sluice tryAcquire", "two policies, hot key: Bucket4j", Double.NaN));
        md.append("\n### Raw numbers (JMH throughput, 1 fork, 2 × ").append(warmupMs).append(" ms warm-up, 3 × ")
                .append(measureMs).append(" ms measured, per case and round)\n\n");
        md.append(table.rawMarkdown());
        return md.toString();
    }
}
