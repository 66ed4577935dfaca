package dev.sluice.bench.sim;

import dev.sluice.bench.Args;
import dev.sluice.bench.Table;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Wall time and peak memory of the simulator (SPEC §7) at {@code --clients} (10,000) and 10 × that,
 * each for {@code --seconds} (600) simulated seconds, each run in a fresh JVM so its peak RSS is its
 * own, with the JVM flags the {@code sluice} launcher gives {@code sluice simulate}
 * ({@link #LAUNCHER_FLAGS}); the base size also runs with the JVM's defaults in the same rounds, for
 * comparison. Runs alternate within each round. The workload is {@link SimOnce#scenario}.
 */
public final class SimRun {

    /**
     * What {@code ./sluice simulate} runs with (the launcher script, unless {@code SLUICE_JAVA_OPTS}
     * is set): the simulator is one thread, so the serial collector with half the heap young suits it
     * (short-lived per-call objects; no collector threads competing with it).
     */
    public static final List<String> LAUNCHER_FLAGS = List.of("-XX:+UseSerialGC", "-XX:NewRatio=1");

    private SimRun() {}

    public static String run(Args args) throws Exception {
        int rounds = args.integer("rounds", 3);
        int bigRounds = args.integer("big-rounds", 1);
        int clients = args.integer("clients", 10_000);
        int seconds = args.integer("seconds", 600);
        Table wall = new Table("s", false);
        Table rss = new Table("MB", false);
        Table heap = new Table("MB", false);
        List<String> calls = new ArrayList<>();
        String base = String.format("%,d clients × %d s", clients, seconds);
        String defaults = base + ", JVM defaults";
        String big = String.format("%,d clients × %d s", clients * 10, seconds);
        for (int round = 1; round <= rounds; round++) {
            for (String label : List.of(base, defaults, big)) {
                if (label.equals(big) && round > bigRounds) {
                    continue;
                }
                int n = label.equals(big) ? clients * 10 : clients;
                String[] f = child(n, seconds, label.equals(defaults) ? List.of() : LAUNCHER_FLAGS);
                wall.add(label, Double.parseDouble(f[0]));
                rss.add(label, Double.parseDouble(f[1]));
                heap.add(label, Double.parseDouble(f[2]));
                if (round == 1 && !label.equals(defaults)) {
                    calls.add("| " + label + " | " + String.format("%,d", Long.parseLong(f[3])) + " | "
                            + String.format("%,d", Long.parseLong(f[4])) + " |");
                }
                System.err.printf("round %d/%d %s: %s s%n", round, rounds, label, f[0]);
            }
        }
        StringBuilder md = new StringBuilder();
        if (clients == 10_000 && seconds == 600) {
            double w = wall.median(base);
            double r = rss.median(base);
            md.append(Table.target("10,000 clients × 600 s, wall time (JVM flags of sluice simulate)", "≤ 3 s",
                    Table.fmt(w) + " s", w <= 3.0));
            md.append(Table.target("10,000 clients × 600 s, peak RSS (JVM flags of sluice simulate)", "≤ 400 MB",
                    Table.fmt(r) + " MB", r <= 400.0));
            md.append('\n');
        }
        md.append("### Wall time and peak memory (median of rounds; the 10× size ran ").append(bigRounds)
                .append(" time(s), the base size ").append(rounds).append(")\n\n");
        md.append("Every run has the JVM flags of `./sluice simulate` (").append(String.join(" ", LAUNCHER_FLAGS))
                .append(") but the row marked JVM defaults (G1 on this machine).\n\n");
        md.append("| run | wall time (s) | peak RSS (MB) | peak heap used (MB) |\n|---|---:|---:|---:|\n");
        for (String label : List.of(base, defaults, big)) {
            md.append("| ").append(label).append(" | ").append(Table.fmt(wall.median(label))).append(" | ")
                    .append(Table.fmt(rss.median(label))).append(" | ").append(Table.fmt(heap.median(label))).append(" |\n");
        }
        md.append("\nSimulated traffic (seed 1):\n\n| run | calls | requests |\n|---|---:|---:|\n")
                .append(String.join("\n", calls)).append("\n");
        md.append("\n### Raw numbers\n\nwall time:\n\n").append(wall.rawMarkdown())
                .append("\npeak RSS:\n\n").append(rss.rawMarkdown())
                .append("\npeak heap used:\n\n").append(heap.rawMarkdown());
        return md.toString();
    }

    private static String[] child(int clients, int seconds, List<String> flags)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), SimOnce.class.getName(),
                String.valueOf(clients), String.valueOf(seconds)));
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(20, TimeUnit.MINUTES) || p.exitValue() != 0 || out.isEmpty()) {
            throw new IllegalStateException("simulator run of " + clients + " clients failed: " + out);
        }
        String[] lines = out.split("\n");
        return lines[lines.length - 1].trim().split(" ");
    }
}
