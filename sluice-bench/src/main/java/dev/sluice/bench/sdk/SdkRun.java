package dev.sluice.bench.sdk;

import com.sun.management.ThreadMXBean;
import dev.sluice.bench.Args;
import dev.sluice.bench.ImmediateServer;
import dev.sluice.bench.Table;
import dev.sluice.client.SluiceHttpClient;
import java.lang.management.ManagementFactory;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * The SDK's added cost per call: {@link SluiceHttpClient} (defaults) against the raw JDK
 * {@link HttpClient} it wraps, one synchronous GET after another to a loopback server that answers
 * {@code 200 ok} at once. Rounds alternate raw, Sluice, raw, Sluice …; each round warms up, then
 * measures latency per call (HdrHistogram) and bytes allocated per call by the whole JVM
 * ({@code getTotalThreadAllocatedBytes}: the server's and the JDK client's threads count for both
 * arms alike, so the difference is what the SDK adds).
 */
public final class SdkRun {

    private SdkRun() {}

    private interface Call {
        void run() throws Exception;
    }

    public static String run(Args args) throws Exception {
        int rounds = args.integer("rounds", 5);
        int warmup = args.integer("warmup-calls", 3_000);
        int calls = args.integer("calls", 10_000);
        Table p50 = new Table("µs", false);
        Table p99 = new Table("µs", false);
        Table bytes = new Table("B/call", false);
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        mx.setThreadAllocatedMemoryEnabled(true);
        try (ImmediateServer server = new ImmediateServer(2)) {
            HttpRequest request = HttpRequest.newBuilder(server.uri("/v1/labels")).GET().build();
            HttpClient raw = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            HttpClient wrapped = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(10)).build();
            try (SluiceHttpClient sluice = SluiceHttpClient.builder().httpClient(wrapped).build()) {
                Call rawCall = () -> check(raw.send(request, HttpResponse.BodyHandlers.ofString()));
                Call sluiceCall = () -> check(sluice.send(request, HttpResponse.BodyHandlers.ofString()));
                for (int round = 1; round <= rounds; round++) {
                    measure("raw java.net.http.HttpClient", rawCall, warmup, calls, mx, p50, p99, bytes);
                    measure("SluiceHttpClient", sluiceCall, warmup, calls, mx, p50, p99, bytes);
                    System.err.printf("round %d/%d done%n", round, rounds);
                }
            }
        }
        double addedP50 = p50.median("SluiceHttpClient") - p50.median("raw java.net.http.HttpClient");
        double addedP99 = p99.median("SluiceHttpClient") - p99.median("raw java.net.http.HttpClient");
        double addedBytes = bytes.median("SluiceHttpClient") - bytes.median("raw java.net.http.HttpClient");
        StringBuilder md = new StringBuilder();
        md.append("### Added per call (median of ").append(rounds).append(" interleaved rounds of ")
                .append(String.format("%,d", calls)).append(" calls)\n\n");
        md.append("| measure | raw HttpClient | SluiceHttpClient | added by the SDK | Sluice/raw | target |\n|---|---:|---:|---:|---:|---|\n");
        md.append(row("p50 latency (µs)", p50, addedP50, "≤ 20 µs added: " + (addedP50 <= 20 ? "met" : "missed")));
        md.append(row("p99 latency (µs)", p99, addedP99, "—"));
        md.append(Table.target("SDK median latency added per call", "≤ 20 µs", Table.fmt(addedP50) + " µs", addedP50 <= 20));
        md.append(row("allocated (B/call, whole JVM)", bytes, addedBytes, "—"));
        md.append("\n### Raw numbers\n\np50 latency:\n\n").append(p50.rawMarkdown())
                .append("\np99 latency:\n\n").append(p99.rawMarkdown())
                .append("\nallocation:\n\n").append(bytes.rawMarkdown());
        return md.toString();
    }

    private static String row(String what, Table t, double added, String verdict) {
        double r = t.median("raw java.net.http.HttpClient");
        double s = t.median("SluiceHttpClient");
        return "| " + what + " | " + Table.fmt(r) + " | " + Table.fmt(s) + " | " + Table.fmt(added) + " | "
                + String.format(java.util.Locale.ROOT, "%.2f×", s / r) + " | " + verdict + " |\n";
    }

    private static void check(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new IllegalStateException("status " + response.statusCode());
        }
    }

    private static void measure(String label, Call call, int warmup, int calls, ThreadMXBean mx,
                                Table p50, Table p99, Table bytes) throws Exception {
        for (int i = 0; i < warmup; i++) {
            call.run();
        }
        Histogram h = new Histogram(60_000_000_000L, 3);
        long allocatedBefore = mx.getTotalThreadAllocatedBytes();
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            call.run();
            h.recordValue(Math.max(1, System.nanoTime() - t0));
        }
        long allocated = mx.getTotalThreadAllocatedBytes() - allocatedBefore;
        p50.add(label, h.getValueAtPercentile(50) / 1000.0);
        p99.add(label, h.getValueAtPercentile(99) / 1000.0);
        bytes.add(label, allocated / (double) calls);
    }
}
