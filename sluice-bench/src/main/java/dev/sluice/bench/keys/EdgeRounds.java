package dev.sluice.bench.keys;

import dev.sluice.bench.Table;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.keys.CachingKeySource;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The same comparison through the real edge over loopback: two {@link EdgeServer}s in this process (one with
 * the keys in its file, one with the store's cache), the same upstream ({@link NginxUpstream}), and wrk
 * ({@code -t2 -c64}, as {@code bench/edge.sh}) with a Lua script sending 99 in 100 requests with a hot key and
 * 1 in 100 with a key used nowhere before. Rounds alternate file, store. CPU per request counts the edge's
 * event loops ({@code sluice-edge-*}), the key cache's lookup threads and the store's PostgreSQL backends;
 * wrk and the upstream are left out.
 */
final class EdgeRounds {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final Pattern RATE = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
    private static final Pattern REQUESTS = Pattern.compile("([0-9]+) requests in");
    private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+([0-9]+)");
    private static final Pattern STATUS = Pattern.compile("STATUS ([0-9]+) ([0-9]+)");
    private static final Pattern P99 = Pattern.compile("\\s99%\\s+([0-9.]+)(us|ms|s)");
    private static final String SCRIPT = """
            local threads = 0
            function setup(thread)
              thread:set("tid", threads)
              threads = threads + 1
            end
            function init(args)
              hot = tonumber(args[1])
              cold = tonumber(args[2]) + tid * tonumber(args[3])
              math.randomseed(1000 + tid + tonumber(args[2]))
              n = 0
            end
            function request()
              n = n + 1
              local k
              if n % 100 == 0 then
                k = cold
                cold = cold + 1
              else
                k = math.random(0, hot - 1)
              end
              return wrk.format("GET", "/v1/items", { ["Authorization"] = string.format("Bearer sk_bench_%026d", k) })
            end
            """;

    private EdgeRounds() {}

    /** How many keys past {@code coldFrom} the rounds use: the file must list them. */
    static int coldKeys(int rounds, int span) {
        return (rounds + 1) * 2 * span;
    }

    static String run(CachingKeySource source, CpuMeter cpu, String plans, int hot, int coldFrom, int span, int rounds,
            int seconds) throws Exception {
        int fileKeys = coldFrom + coldKeys(rounds, span);
        try (NginxUpstream upstream = new NginxUpstream()) {
            String head = "listen: 127.0.0.1:0\nadmin: 127.0.0.1:0\nupstream: { url: \"http://127.0.0.1:" + upstream.port
                    + "\", pool-size: 64 }\n"
                    // wrk's 64 connections would meet the shedder's default limit (64, 20 % reserved for CRITICAL):
                    // its 503s are cheaper than forwarded requests and would skew the CPU per request
                    + "shedding: { mode: off }\n" + plans;
            StringBuilder file = new StringBuilder(head).append("keys:\n");
            for (int i = 0; i < hot; i++) {
                file.append("  ").append(KeysRun.token(i)).append(": bench\n");
            }
            for (int i = coldFrom; i < fileKeys; i++) {
                file.append("  ").append(KeysRun.token(i)).append(": bench\n");
            }
            EdgeServer fileEdge = EdgeServer.start(EdgeConfig.parse("edge-file.yaml", file.toString()));
            // the store's edge closes the key source when it closes: this is the last use of it
            EdgeServer storeEdge = EdgeServer.start(EdgeConfig.parse("edge-store.yaml", head),
                    EdgeOptions.defaults().withKeySource(source));
            Path script = Files.createTempFile("keys-bench", ".lua");
            Files.writeString(script, SCRIPT, StandardCharsets.UTF_8);
            Table rate = new Table("requests/s", true);
            Table perCpu = new Table("requests per CPU second", true);
            Table p99 = new Table("µs", false);
            List<Double> cpuRatios = new ArrayList<>();
            long fileNon2xx = 0;
            long storeNon2xx = 0;
            Map<Integer, Long> fileStatuses = new TreeMap<>();
            Map<Integer, Long> storeStatuses = new TreeMap<>();
            try {
                for (int round = 0; round <= rounds; round++) {
                    int from = coldFrom + round * 2 * span;
                    Map<Integer, Long> fs = new TreeMap<>();
                    Map<Integer, Long> ss = new TreeMap<>();
                    double[] f = wrk(fileEdge.port(), script, hot, from, span, seconds, cpu, fs);
                    double[] s = wrk(storeEdge.port(), script, hot, from, span, seconds, cpu, ss);
                    System.err.printf("edge %s: file %,.0f req/s (%.1f µs CPU), store %,.0f req/s (%.1f µs CPU): "
                            + "%.2f×, per CPU %.2f× (load %s)%n", round == 0 ? "warm-up" : "round " + round + "/" + rounds,
                            f[0], 1e6 / f[1], s[0], 1e6 / s[1], s[0] / f[0], s[1] / f[1], KeysRun.loadAverage());
                    if (round == 0) {
                        continue;
                    }
                    rate.add("edge, PostgreSQL keys", s[0]);
                    rate.add("edge, key file", f[0]);
                    perCpu.add("edge, PostgreSQL keys", s[1]);
                    perCpu.add("edge, key file", f[1]);
                    p99.add("edge, PostgreSQL keys", s[2]);
                    p99.add("edge, key file", f[2]);
                    cpuRatios.add(s[1] / f[1]);
                    fileNon2xx += (long) f[3];
                    storeNon2xx += (long) s[3];
                    fs.forEach((k, v) -> fileStatuses.merge(k, v, Long::sum));
                    ss.forEach((k, v) -> storeStatuses.merge(k, v, Long::sum));
                }
            } finally {
                storeEdge.close();
                fileEdge.close();
                Files.deleteIfExists(script);
            }
            double fileMicros = 1e6 / perCpu.median("edge, key file");
            double storeMicros = 1e6 / perCpu.median("edge, PostgreSQL keys");
            StringBuilder md = new StringBuilder();
            md.append("### Through the edge over loopback: wrk, 99 % cache hits\n\n")
                    .append("Two `EdgeServer`s in the harness's process, one with the keys in its file (")
                    .append(String.format(Locale.ROOT, "%,d", hot + fileKeys - coldFrom))
                    .append(" keys), one with the store's cache (already holding the hot keys), in front of one "
                            + "nginx upstream answering 200 at once; `wrk -t2 -c64 -d").append(seconds)
                    .append("s` per case, 99 in 100 requests with one of the ").append(String.format(Locale.ROOT, "%,d", hot))
                    .append(" hot keys and 1 in 100 with a key never used before (the store looks it up); rounds "
                            + "alternate file, store, after one warm-up round. CPU counts the edge's event loops, the "
                            + "cache's lookup threads and the store's PostgreSQL backends (not wrk, not nginx). "
                            + "Answers other than 200 over the counted rounds (wrk's count): file ").append(fileNon2xx)
                    .append(", store ").append(storeNon2xx).append(".\n\n");
            md.append(perCpu.ratioHeader("key file"));
            // no verdict: the per-round ratios spread far wider than the 5 % the target asks to resolve
            md.append(perCpu.ratioRow("edge requests per CPU second, 99 % cache hits, PostgreSQL keys vs key file",
                    "edge, PostgreSQL keys", "edge, key file", Double.NaN));
            md.append("\nWithin each round: ").append(KeysRun.ratios(cpuRatios)).append(String.format(Locale.ROOT,
                    ". CPU per request (medians): key file %.1f µs, PostgreSQL keys %.1f µs (%+.1f µs).%n%n",
                    fileMicros, storeMicros, storeMicros - fileMicros));
            md.append(perCpu.rawMarkdown()).append("\n");
            md.append(rate.ratioHeader("key file"));
            md.append(rate.ratioRow("edge requests/s (wall clock), 99 % cache hits, PostgreSQL keys vs key file",
                    "edge, PostgreSQL keys", "edge, key file", Double.NaN));
            md.append("\n").append(rate.rawMarkdown()).append("\n");
            md.append(p99.ratioHeader("key file"));
            md.append(p99.ratioRow("edge p99 latency (wrk), 99 % cache hits, PostgreSQL keys vs key file",
                    "edge, PostgreSQL keys", "edge, key file", Double.NaN));
            md.append("\n").append(p99.rawMarkdown()).append("\n");
            return md.toString();
        }
    }

    /** One wrk run: requests/s, requests per CPU second, p99 (µs), non-2xx count. */
    private static double[] wrk(int port, Path script, int hot, int coldFrom, int span, int seconds, CpuMeter cpu,
            Map<Integer, Long> statuses) throws Exception {
        long c0 = edgeNanos() + cpu.lookupNanos();
        Process p = new ProcessBuilder("wrk", "-t2", "-c64", "-d" + seconds + "s", "--latency", "-s", script.toString(),
                "http://127.0.0.1:" + port + "/v1/items", "--", String.valueOf(hot), String.valueOf(coldFrom),
                String.valueOf(span)).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IllegalStateException("wrk failed: " + out);
        }
        long c1 = edgeNanos() + cpu.lookupNanos();
        double rps = number(RATE, out);
        double requests = number(REQUESTS, out);
        Matcher m = P99.matcher(out);
        double p99 = Double.NaN;
        if (m.find()) {
            double v = Double.parseDouble(m.group(1));
            p99 = switch (m.group(2)) {
                case "us" -> v;
                case "ms" -> v * 1e3;
                default -> v * 1e6;
            };
        }
        out.lines().filter(l -> l.startsWith("STATUS") || l.contains("Non-2xx") || l.contains("requests in"))
                .forEach(l -> System.err.println("wrk :" + port + " " + l.strip()));
        Matcher st = STATUS.matcher(out);
        while (st.find()) {
            statuses.merge(Integer.parseInt(st.group(1)), Long.parseLong(st.group(2)), Long::sum);
        }
        Matcher n = NON_2XX.matcher(out);
        double non2xx = n.find() ? Double.parseDouble(n.group(1)) : 0;
        return new double[] {rps, requests / ((c1 - c0) / 1e9), p99, non2xx};
    }

    private static double number(Pattern p, String text) {
        Matcher m = p.matcher(text);
        if (!m.find()) {
            throw new IllegalStateException("wrk output without " + p + ": " + text);
        }
        return Double.parseDouble(m.group(1));
    }

    /** CPU of the edges' event loops (only the edge under load uses any). */
    private static long edgeNanos() {
        long sum = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t != null && t.getThreadName().startsWith("sluice-edge")) {
                sum += Math.max(0, THREADS.getThreadCpuTime(t.getThreadId()));
            }
        }
        return sum;
    }
}
