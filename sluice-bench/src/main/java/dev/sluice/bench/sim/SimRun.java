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
 * each for {@code --seconds} (600) simulated seconds, each run in a fresh JVM (default heap) so its
 * peak RSS is its own; sizes alternate within each round. The workload is {@link SimOnce#scenario}.
 */
public final class SimRun {

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
        for (int round = 1; round <= rounds; round++) {
            for (int n : new int[] {clients, clients * 10}) {
                if (n != clients && round > bigRounds) {
                    continue;
                }
                String label = String.format("%,d clients × %d s", n, seconds);
                String[] f = child(n, seconds);
                wall.add(label, Double.parseDouble(f[0]));
                rss.add(label, Double.parseDouble(f[1]));
                heap.add(label, Double.parseDouble(f[2]));
                if (round == 1) {
                    calls.add("| " + label + " | " + String.format("%,d", Long.parseLong(f[3])) + " | "
                            + String.format("%,d", Long.parseLong(f[4])) + " |");
                }
                System.err.printf("round %d/%d %s: %s s%n", round, rounds, label, f[0]);
            }
        }
        StringBuilder md = new StringBuilder();
        md.append("### Wall time and peak memory (median of rounds; the 10× size ran ").append(bigRounds)
                .append(" time(s), the base size ").append(rounds).append(")\n\n");
        md.append("| run | wall time (s) | peak RSS (MB) | peak heap used (MB) |\n|---|---:|---:|---:|\n");
        for (String label : List.of(String.format("%,d clients × %d s", clients, seconds),
                String.format("%,d clients × %d s", clients * 10, seconds))) {
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

    private static String[] child(int clients, int seconds) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = System.getProperty("java.class.path");
        Process p = new ProcessBuilder(java, "-cp", cp, SimOnce.class.getName(),
                String.valueOf(clients), String.valueOf(seconds))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(20, TimeUnit.MINUTES) || p.exitValue() != 0 || out.isEmpty()) {
            throw new IllegalStateException("simulator run of " + clients + " clients failed: " + out);
        }
        String[] lines = out.split("\n");
        return lines[lines.length - 1].trim().split(" ");
    }
}
