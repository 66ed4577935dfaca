package dev.sluice.cli.edge;

import dev.sluice.cli.Main;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code sluice edge --config FILE} in JVMs of their own, started together (so their start-ups
 * overlap), each on a port of its own: the replicas of SPEC §3.14. The JVMs run the test's class path
 * with a small heap and the C1 compiler only, which starts faster on a small machine.
 */
final class EdgeProcesses implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on [^ /]*:(\\d+) ");

    private final List<Process> processes = new ArrayList<>();
    private final List<Path> logs = new ArrayList<>();
    private final List<Integer> ports = new ArrayList<>();

    private EdgeProcesses() {
    }

    /**
     * Starts {@code n} edges on {@code config} and waits (at most 60 s) until each prints the port it
     * listens on.
     *
     * @throws IllegalStateException with the edge's log when one exits or stays silent
     */
    static EdgeProcesses start(int n, Path config) throws IOException, InterruptedException {
        EdgeProcesses edges = new EdgeProcesses();
        try {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<BlockingQueue<String>> outs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Path log = Files.createTempFile("sluice-edge-" + i + "-", ".log");
                Process p = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx128m",
                        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                        Main.class.getName(), "edge", "--config", config.toString(), "--no-watch")
                        .redirectError(log.toFile()).start();
                edges.processes.add(p);
                edges.logs.add(log);
                BlockingQueue<String> lines = new LinkedBlockingQueue<>();
                outs.add(lines);
                Thread.ofPlatform().daemon().name("edge-" + i + "-stdout").start(() -> {
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = r.readLine(); line != null; line = r.readLine()) {
                            lines.add(line);
                        }
                    } catch (IOException e) {
                        lines.add("EOF " + e);
                    }
                });
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int i = 0; i < n; i++) {
                edges.ports.add(awaitPort(i, outs.get(i), edges, deadline));
            }
            return edges;
        } catch (IOException | InterruptedException | RuntimeException e) {
            edges.close();
            throw e;
        }
    }

    private static int awaitPort(int i, BlockingQueue<String> lines, EdgeProcesses edges, long deadline)
            throws InterruptedException, IOException {
        while (true) {
            String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.startsWith("EOF")) {
                throw new IllegalStateException("edge " + i + " did not start: " + line + "\n"
                        + Files.readString(edges.logs.get(i)));
            }
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
        }
    }

    /** What edge {@code i} wrote to stderr so far (its log lines). */
    String log(int i) throws IOException {
        return Files.readString(logs.get(i));
    }

    /** The port of edge {@code i}. */
    int port(int i) {
        return ports.get(i);
    }

    int size() {
        return ports.size();
    }

    /** Stops every edge (SIGTERM: the shutdown hook closes the edge and its store), bounded. */
    @Override
    public void close() {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        for (Path log : logs) {
            try {
                Files.deleteIfExists(log);
            } catch (IOException ignored) {
                // a temp file
            }
        }
    }
}
