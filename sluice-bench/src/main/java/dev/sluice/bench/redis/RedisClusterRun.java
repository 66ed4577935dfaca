package dev.sluice.bench.redis;

import dev.sluice.bench.Args;
import dev.sluice.bench.Load;
import dev.sluice.bench.Table;
import dev.sluice.limiter.BurstPolicy;
import dev.sluice.limiter.Costs;
import dev.sluice.limiter.Plan;
import dev.sluice.limiter.Unavailable;
import dev.sluice.redis.limiter.RedisLimiterConfig;
import dev.sluice.redis.limiter.RedisLimiterStore;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Decisions per second and p99 of {@link RedisLimiterStore} on a 3-primary Redis Cluster
 * ({@code redis-cluster://}) against the same store on one Redis server ({@code redis://}), both started
 * by the harness on free loopback ports with the same settings ({@code --save '' --appendonly no}) and
 * stopped at the end. 10,000 API keys (spread over the cluster's three nodes by their hash tags), a
 * burst policy of 10^6 per second so every decision is admitted, 1, 64 and 256 decisions in flight; in
 * every round the single server runs, then the cluster (A B A B). On this machine every server shares
 * the same cores with the client, so the cluster's extra nodes add no CPU: the figures show the price of
 * the cluster client (per-node connections, each command flushed as written) rather than a cluster's
 * scale-out.
 */
public final class RedisClusterRun {

    private record Case(String name, int outstanding) {}

    private RedisClusterRun() {}

    public static String run(Args args) throws Exception {
        int rounds = args.integer("rounds", 5);
        int warmupMs = args.integer("warmup-ms", 300);
        int measureMs = args.integer("measure-ms", 1500);
        List<Case> cases = List.of(new Case("10,000 keys, 1 in flight", 1), new Case("10,000 keys, 64 in flight", 64),
                new Case("10,000 keys, 256 in flight", 256));
        Plan plan = Plan.of("bench", BurstPolicy.of("burst", 1_000_000, 1));
        String[] keys = new String[10_000];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "sk_live_" + i;
        }
        Table rate = new Table("decisions/s", true);
        Table p99 = new Table("µs", false);
        AtomicLong fallbacks = new AtomicLong();
        String spread = "";

        try (Servers servers = new Servers()) {
            int single = servers.server();
            List<Integer> cluster = servers.cluster(3);
            String singleUrl = "redis://127.0.0.1:" + single;
            String clusterUrl = "redis-cluster://127.0.0.1:" + cluster.get(0) + ",127.0.0.1:" + cluster.get(1);
            RedisLimiterConfig config = RedisLimiterConfig.builder().keyPrefix("sluice-bench:")
                    .decisionTimeout(Duration.ofSeconds(2)).build();
            try (RedisLimiterStore one = RedisLimiterStore.open(singleUrl, config);
                    RedisLimiterStore three = RedisLimiterStore.open(clusterUrl, config)) {
                for (int round = 1; round <= rounds; round++) {
                    for (Case c : cases) {
                        record(rate, p99, c.name() + ": one server",
                                Load.run(c.outstanding(), warmupMs, measureMs, call(one, keys, plan, fallbacks)));
                        record(rate, p99, c.name() + ": cluster",
                                Load.run(c.outstanding(), warmupMs, measureMs, call(three, keys, plan, fallbacks)));
                        System.err.printf(Locale.ROOT, "round %d/%d %s done%n", round, rounds, c.name());
                    }
                }
                spread = servers.keysPerNode(cluster);
                System.err.println("keys per cluster node: " + spread);
            }
        }

        StringBuilder md = new StringBuilder();
        md.append("### 3-primary cluster vs one server (decisions/s, median of ").append(rounds)
                .append(" interleaved rounds)\n\n");
        md.append(header("decisions/s"));
        for (Case c : cases) {
            md.append(rate.ratioRow(c.name(), c.name() + ": cluster", c.name() + ": one server", Double.NaN));
        }
        md.append("\nKeys per cluster node at the end (`DBSIZE`): ").append(spread).append(".\n");
        md.append("\nDecisions answered by the local fallback or unavailable (not by Redis): ").append(fallbacks.get())
                .append(" (decision timeout set to 2 s for the run).\n");
        md.append("\n### p99 latency (µs, median of rounds)\n\n");
        md.append(header("µs"));
        for (Case c : cases) {
            md.append(p99.ratioRow(c.name(), c.name() + ": cluster", c.name() + ": one server", Double.NaN));
        }
        md.append("\n### Raw numbers: decisions/s\n\n").append(rate.rawMarkdown());
        md.append("\n### Raw numbers: p99 latency\n\n").append(p99.rawMarkdown());
        return md.toString();
    }

    private static String header(String unit) {
        return "| comparison | cluster (" + unit + ") | one server (" + unit + ") | cluster/one server | target |\n"
                + "|---|---:|---:|---:|---|\n";
    }

    private static IntFunction<CompletionStage<?>> call(RedisLimiterStore store, String[] keys, Plan plan,
            AtomicLong fallbacks) {
        return i -> store.decideAsync(keys[i % keys.length], plan, Costs.ONE).thenApply(d -> {
            if (store.isFallback(d) || d instanceof Unavailable) {
                fallbacks.incrementAndGet();
            }
            return d;
        });
    }

    private static void record(Table rate, Table p99, String label, Load.Result r) {
        rate.add(label, r.perSecond());
        p99.add(label, r.p99Micros());
        if (r.failures() > 0) {
            System.err.printf("%s: %d failed calls%n", label, r.failures());
        }
    }

    /** The harness's own Redis processes, in a temporary directory; all killed and the directory removed on close. */
    private static final class Servers implements AutoCloseable {
        private final Path dir = Files.createTempDirectory("sluice-bench-redis-");
        private final List<Process> processes = new ArrayList<>();
        private final Thread hook = new Thread(this::stop, "sluice-bench-redis-stop");

        Servers() throws IOException {
            Runtime.getRuntime().addShutdownHook(hook);
        }

        int server() throws IOException, InterruptedException {
            int port = freePort(false);
            start(List.of("--port", String.valueOf(port)));
            awaitPing(port);
            return port;
        }

        List<Integer> cluster(int primaries) throws IOException, InterruptedException {
            List<Integer> ports = new ArrayList<>();
            for (int i = 0; i < primaries; i++) {
                int port = freePort(true);
                ports.add(port);
                start(List.of("--port", String.valueOf(port), "--cluster-enabled", "yes", "--cluster-config-file",
                        "nodes-" + port + ".conf"));
            }
            for (int port : ports) {
                awaitPing(port);
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            ports.forEach(p -> create.add("127.0.0.1:" + p));
            create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            run(create);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            for (int port : ports) {
                while (!run(List.of("redis-cli", "-p", String.valueOf(port), "cluster", "info"))
                        .contains("cluster_state:ok")) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("cluster node " + port + " not ok within 15 s");
                    }
                    Thread.sleep(20);
                }
            }
            return ports;
        }

        String keysPerNode(List<Integer> ports) throws IOException, InterruptedException {
            List<String> counts = new ArrayList<>();
            for (int port : ports) {
                counts.add(port + ": " + run(List.of("redis-cli", "-p", String.valueOf(port), "dbsize")).strip());
            }
            return String.join(", ", counts);
        }

        private void start(List<String> options) throws IOException {
            List<String> command = new ArrayList<>(List.of("redis-server", "--bind", "127.0.0.1", "--save", "",
                    "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()));
            command.addAll(options);
            processes.add(new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis-" + processes.size() + ".log").toFile()).start());
        }

        private static String run(List<String> command) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(command + " did not end within 15 s");
            }
            return new String(out, StandardCharsets.UTF_8);
        }

        private static void awaitPing(int port) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (!ping(port)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("redis on " + port + " did not answer PING within 15 s");
                }
                Thread.sleep(10);
            }
        }

        private static boolean ping(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                s.setSoTimeout(500);
                OutputStream out = s.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                byte[] buf = new byte[7];
                return s.getInputStream().readNBytes(buf, 0, 7) == 7
                        && new String(buf, StandardCharsets.US_ASCII).startsWith("+PONG");
            } catch (IOException e) {
                return false;
            }
        }

        private static int freePort(boolean clusterBus) throws IOException {
            for (int attempt = 0; attempt < 200; attempt++) {
                int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
                if (bindable(port) && (!clusterBus || bindable(port + 10_000))) {
                    return port;
                }
            }
            throw new IOException("no free port found in 200 attempts");
        }

        private static boolean bindable(int port) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        private void stop() {
            for (Process p : processes) {
                p.destroyForcibly();
            }
            for (Process p : processes) {
                try {
                    p.waitFor(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            processes.clear();
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // a temporary directory: best effort
            }
        }

        @Override
        public void close() {
            stop();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down already: the hook runs stop() again, which finds nothing left
            }
        }
    }
}
