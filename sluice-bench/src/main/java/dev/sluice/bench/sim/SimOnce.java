package dev.sluice.bench.sim;

import dev.sluice.sim.SecondRow;
import dev.sluice.sim.Simulation;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.scenario.Scenario;
import dev.sluice.sim.scenario.ScenarioReader;
import java.io.StringReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One simulator run in a JVM of its own (started by {@link SimRun}): {@code CLIENTS SECONDS}.
 * Prints {@code wall_s peak_rss_mb peak_heap_mb calls requests} on one line.
 */
public final class SimOnce {

    private SimOnce() {}

    /** The scenario: Poisson calls at 0.1/s per client, a per-client limit, a 5 s blip of 503s at 60 s. */
    static String scenario(int clients, int seconds) {
        return """
                name: bench
                duration: %ds
                seed: 1
                server:
                  rtt: 20ms
                  limit: { scope: per-client, policies: [ { name: burst, q: 5, w: 1 } ] }
                  outages: [ { from: 60s, to: 65s, status: 503, retry_after: 5s } ]
                fleet:
                  clients: %d
                  arrivals: { process: poisson, rate: 0.1 }
                """.formatted(seconds, clients);
    }

    public static void main(String[] args) throws Exception {
        int clients = Integer.parseInt(args[0]);
        int seconds = Integer.parseInt(args[1]);
        Scenario s = ScenarioReader.read("bench.yaml", new StringReader(scenario(clients, seconds)));
        long t0 = System.nanoTime();
        SimulationResult r = Simulation.run(s, 1, null);
        double wall = (System.nanoTime() - t0) / 1e9;
        long calls = 0;
        long requests = 0;
        for (SecondRow row : r.variants().get(0).rows()) {
            calls += row.calls();
            requests += row.requests();
        }
        long heapPeak = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPeak += pool.getPeakUsage().getUsed();
            }
        }
        long rssKb = 0;
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmHWM:")) {
                rssKb = Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        System.out.printf(Locale.ROOT, "%.3f %.1f %.1f %d %d%n", wall, rssKb / 1024.0, heapPeak / 1048576.0, calls, requests);
    }
}
