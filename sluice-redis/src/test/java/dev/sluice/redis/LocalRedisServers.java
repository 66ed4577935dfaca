package dev.sluice.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
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
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Real Redis servers that a test class starts on free loopback ports, in a temporary directory, and
 * stops in {@code @AfterAll} ({@link #close()}: every process killed, the directory deleted, even after a
 * failure): a Redis Cluster of N primaries ({@code redis-server --cluster-enabled yes}, joined by
 * {@code redis-cli --cluster create}), a plain server, a Sentinel ({@code redis-server --sentinel}).
 * Test classes declare {@code @ExtendWith(LocalRedisServers.class)}: without {@code redis-server} and
 * {@code redis-cli} on the path they are skipped with the reason printed, except under {@code CI=true},
 * where they run and fail. Not thread-safe; one instance per test class.
 */
public final class LocalRedisServers implements ExecutionCondition, AutoCloseable {

    private static final Duration START_BOUND = Duration.ofSeconds(15);

    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    /** Port → the command that started its server and its process, for {@link #stop} and {@link #restart}. */
    private final java.util.Map<Integer, List<String>> commands = new java.util.HashMap<>();
    private final java.util.Map<Integer, Process> byPort = new java.util.HashMap<>();

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String missing = missingBinaries();
        if (missing == null) {
            return ConditionEvaluationResult.enabled("redis-server and redis-cli are on the path");
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            return ConditionEvaluationResult.enabled("CI=true: " + missing + "; the tests will fail");
        }
        String reason = "skipped: " + missing + " (install Debian's redis-server, or set CI=true to fail instead)";
        System.out.println(context.getDisplayName() + ": " + reason);
        return ConditionEvaluationResult.disabled(reason);
    }

    /** {@code null} when both programs are on the path, else what is missing. */
    public static String missingBinaries() {
        for (String program : List.of("redis-server", "redis-cli")) {
            if (which(program) == null) {
                return "no " + program + " on the PATH";
            }
        }
        return null;
    }

    private static Path which(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String d : path.split(java.util.regex.Pattern.quote(File.pathSeparator), -1)) {
            Path p = Path.of(d, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Used by JUnit as the condition; tests use {@link #create()}. */
    public LocalRedisServers() {
        this.dir = null;
    }

    private LocalRedisServers(Path dir) {
        this.dir = dir;
        // a JVM stopped before @AfterAll (a killed fork) still stops its servers
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "local-redis-servers-stop"));
    }

    /** An empty set of servers with its temporary directory. */
    public static LocalRedisServers create() throws IOException {
        return new LocalRedisServers(Files.createTempDirectory("sluice-redis-"));
    }

    // ------------------------------------------------------------------------------------ servers

    /** A plain server (cluster support disabled) on a free port; returns the port. */
    public int startServer() throws IOException {
        int port = freePort(false);
        start(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString()), "server-" + port);
        awaitPing(port);
        return port;
    }

    /**
     * A Redis Cluster of {@code primaries} nodes, no replicas, every slot assigned, {@code cluster_state:ok}
     * on each node; returns their ports in the order {@code redis-cli --cluster create} was given them (it
     * assigns slot ranges in that order).
     */
    public List<Integer> startCluster(int primaries) throws IOException, InterruptedException {
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < primaries; i++) {
            int port = freePort(true);
            ports.add(port);
            start(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + port + ".conf",
                    "--cluster-node-timeout", "5000", "--save", "", "--appendonly", "no", "--daemonize", "no",
                    "--dir", dir.toString()), "cluster-" + port);
        }
        for (int port : ports) {
            awaitPing(port);
        }
        List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        ports.forEach(p -> create.add("127.0.0.1:" + p));
        create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
        String out = run(create);
        if (!out.contains("[OK] All 16384 slots covered")) {
            throw new IllegalStateException("redis-cli --cluster create did not cover every slot:\n" + out);
        }
        for (int port : ports) {
            awaitUntil("node " + port + " cluster_state:ok", () -> cli(port, "cluster", "info").contains("cluster_state:ok"));
        }
        return ports;
    }

    /**
     * A replica of the server on {@code masterPort}, on a free port, its link up ({@code INFO replication}:
     * {@code master_link_status:up}); returns its port.
     */
    public int startReplica(int masterPort) throws IOException, InterruptedException {
        int port = freePort(false);
        start(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", dir.toString(), "--replicaof", "127.0.0.1",
                Integer.toString(masterPort)), "replica-" + port);
        awaitPing(port);
        awaitUntil("replica " + port + " linked to " + masterPort,
                () -> cli(port, "info", "replication").contains("master_link_status:up"));
        return port;
    }

    /**
     * A Sentinel on a free port monitoring the primary at {@code masterPort} as {@code masterName}
     * (quorum 1; told of {@code replicaPorts} at once rather than after its first {@code INFO}), answering
     * {@code SENTINEL get-master-addr-by-name} for it; returns its port.
     */
    public int startSentinel(String masterName, int masterPort, int... replicaPorts)
            throws IOException, InterruptedException {
        int port = freePort(false);
        Path conf = dir.resolve("sentinel-" + port + ".conf");
        StringBuilder replicas = new StringBuilder();
        for (int r : replicaPorts) {
            replicas.append("sentinel known-replica ").append(masterName).append(" 127.0.0.1 ").append(r).append('\n');
        }
        Files.writeString(conf, "port " + port + "\nbind 127.0.0.1\ndaemonize no\ndir " + dir + "\n"
                + "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " 1\n"
                + "sentinel down-after-milliseconds " + masterName + " 5000\n"
                + "sentinel failover-timeout " + masterName + " 10000\n" + replicas);
        start(List.of("redis-server", conf.toString(), "--sentinel"), "sentinel-" + port);
        awaitPing(port);
        awaitUntil("sentinel " + port + " knows " + masterName,
                () -> cli(port, "sentinel", "get-master-addr-by-name", masterName).contains(Integer.toString(masterPort)));
        return port;
    }

    /** {@code redis-cli -p port args…}'s output (stdout and stderr). */
    public String cli(int port, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(command);
    }

    /** A Lettuce connection to one server (not cluster-aware: sees that node's keys only); the caller closes it. */
    public static Node node(int port) {
        RedisClient client = RedisClient.create(RedisURI.create("redis://127.0.0.1:" + port));
        StatefulRedisConnection<String, String> c = client.connect();
        c.setTimeout(Duration.ofSeconds(5));
        return new Node(client, c);
    }

    /** A client and its connection to one node. */
    public record Node(RedisClient client, StatefulRedisConnection<String, String> connection) implements AutoCloseable {
        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
        }
    }

    /** Kills every process started (and waits for it), then deletes the directory. */
    @Override
    public synchronized void close() {
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
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // best effort: a temporary directory
            }
        }
    }

    // ------------------------------------------------------------------------------------ helpers

    private synchronized void start(List<String> command, String name) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(name + ".log").toFile()));
        Process p = pb.start();
        processes.add(p);
        int at = command.indexOf("--port"); // a Sentinel's port is in its file: not restartable by port
        int port = at < 0 ? -processes.size() : Integer.parseInt(command.get(at + 1));
        commands.put(port, List.copyOf(command));
        byPort.put(port, p);
    }

    /** Kills the server on {@code port} (as a crash would) and waits for it to end. */
    public synchronized void stop(int port) throws InterruptedException {
        Process p = byPort.get(port);
        p.destroyForcibly();
        p.waitFor(5, TimeUnit.SECONDS);
    }

    /** Starts the server on {@code port} again with the command it was first started with; waits for PING. */
    public void restart(int port) throws IOException {
        start(commands.get(port), "restarted-" + port);
        awaitPing(port);
    }

    private String run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out;
        try (InputStream in = p.getInputStream()) {
            out = in.readAllBytes();
        }
        if (!p.waitFor(START_BOUND.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command + " did not end within " + START_BOUND);
        }
        return new String(out, StandardCharsets.UTF_8);
    }

    private void awaitPing(int port) throws IOException {
        try {
            awaitUntil("redis on port " + port + " answers PING", () -> ping(port));
        } catch (ConditionTimeoutException e) {
            String log = "";
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : files.filter(f -> f.toString().endsWith(port + ".log")).toList()) {
                    log = Files.readString(p);
                }
            }
            throw new IllegalStateException("redis on port " + port + " did not answer PING within " + START_BOUND
                    + ":\n" + log, e);
        }
    }

    /** Waits, checking every 20 ms, at most {@link #START_BOUND} for {@code condition}. */
    private static void awaitUntil(String what, Callable<Boolean> condition) {
        Awaitility.await(what).atMost(START_BOUND).pollInterval(Duration.ofMillis(20)).until(condition);
    }

    private static boolean ping(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] buf = new byte[7];
            int n = s.getInputStream().readNBytes(buf, 0, 7);
            return n == 7 && new String(buf, StandardCharsets.US_ASCII).startsWith("+PONG");
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * A port free on the loopback now; with {@code clusterBus}, its cluster bus port (+10,000) too. Drawn at
     * random from 20,000–29,999, away from the kernel's ephemeral range.
     */
    private static int freePort(boolean clusterBus) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 30_000);
            if (bindable(port) && (!clusterBus || bindable(port + 10_000))) {
                return port;
            }
        }
        throw new IOException("no free port pair found in 200 attempts");
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(false);
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
