package dev.sluice.bench;

import dev.sluice.bench.limiter.Footprint;
import dev.sluice.bench.limiter.LimiterRun;

/**
 * Entry point of the benchmark jar: {@code java -jar sluice-bench.jar NAME [--option value …]} runs
 * one harness and prints its Markdown section on stdout (progress on stderr). {@code bench/run.sh}
 * adds the header (date, machine, versions, command) and writes {@code bench/results/NAME.md}.
 */
public final class Main {

    private Main() {}

    public static void main(String[] argv) throws Exception {
        if (argv.length == 0) {
            System.err.println("usage: sluice-bench limiter|footprint|redis|redis-cluster|sdk|delivery|sim|keys [--name value ...]");
            System.exit(2);
        }
        Args args;
        try {
            args = new Args(argv, 1);
        } catch (IllegalArgumentException e) {
            System.err.println("sluice-bench: " + e.getMessage());
            System.exit(2);
            return;
        }
        String out = switch (argv[0]) {
            case "limiter" -> LimiterRun.run(args);
            case "footprint" -> Footprint.run(args);
            case "redis" -> dev.sluice.bench.redis.RedisRun.run(args);
            case "redis-cluster" -> dev.sluice.bench.redis.RedisClusterRun.run(args);
            case "sdk" -> dev.sluice.bench.sdk.SdkRun.run(args);
            case "delivery" -> dev.sluice.bench.delivery.DeliveryRun.run(args);
            case "sim" -> dev.sluice.bench.sim.SimRun.run(args);
            case "keys" -> dev.sluice.bench.keys.KeysRun.run(args);
            default -> {
                System.err.println("sluice-bench: unknown benchmark '" + argv[0] + "'");
                System.exit(2);
                yield "";
            }
        };
        System.out.print(out);
        System.out.flush();
        System.exit(0);
    }
}
