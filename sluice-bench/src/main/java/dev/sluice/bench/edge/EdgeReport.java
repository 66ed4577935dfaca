package dev.sluice.bench.edge;

import dev.sluice.bench.Table;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the raw {@code wrk} lines of {@code bench/edge.sh} into the Markdown of {@code edge.md}:
 * {@code label, requests/s, p50, p99, p99.9 (µs), non-2xx responses, requests}, one line per case and
 * round, rounds interleaved.
 */
public final class EdgeReport {

    static final String DIRECT = "direct to upstream (nginx static)";
    static final String NGINX_REJECT = "rejected: nginx limit_req";
    static final String NGINX_ADMIT = "admitted: nginx limit_req + proxy_pass";
    static final String H2C_NGINX_REJECT = "h2c rejected: nginx limit_req";

    private EdgeReport() {}

    public static void main(String[] args) throws IOException {
        List<String> lines = Files.readAllLines(Path.of(args[0]));
        String connections = args.length > 1 ? args[1] : "?";
        Table rps = new Table("req/s", true);
        Table p50 = new Table("µs", false);
        Table p99 = new Table("µs", false);
        Table p999 = new Table("µs", false);
        Map<String, long[]> statuses = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f.length < 7) {
                continue;
            }
            rps.add(f[0], Double.parseDouble(f[1]));
            p50.add(f[0], Double.parseDouble(f[2]));
            p99.add(f[0], Double.parseDouble(f[3]));
            p999.add(f[0], Double.parseDouble(f[4]));
            long[] s = statuses.computeIfAbsent(f[0], k -> new long[2]);
            s[0] += Long.parseLong(f[5]);
            s[1] += Long.parseLong(f[6]);
        }
        StringBuilder md = new StringBuilder();
        md.append("### Every case (medians of the rounds; wrk -t2 -c").append(connections).append(" on loopback)\n\n");
        md.append("| case | req/s | p50 (µs) | p99 (µs) | p99.9 (µs) | non-2xx share |\n|---|---:|---:|---:|---:|---:|\n");
        for (String label : statuses.keySet()) {
            long[] s = statuses.get(label);
            md.append("| ").append(label).append(" | ").append(Table.fmt(rps.median(label))).append(" | ")
                    .append(Table.fmt(p50.median(label))).append(" | ").append(Table.fmt(p99.median(label)))
                    .append(" | ").append(Table.fmt(p999.median(label))).append(" | ")
                    .append(String.format(Locale.ROOT, "%.4f", s[1] == 0 ? 0 : s[0] / (double) s[1])).append(" |\n");
        }
        md.append("\n### Ratios and targets\n\n");
        md.append(rps.ratioHeader("nginx"));
        md.append(rps.ratioRow("rejection path, fields off, req/s", "rejected: Sluice, fields off", NGINX_REJECT, 1.0));
        md.append(rps.ratioRow("rejection path, fields on, req/s", "rejected: Sluice, fields on", NGINX_REJECT, 0.9));
        md.append(p99.ratioRow("rejection path, fields off, p99", "rejected: Sluice, fields off", NGINX_REJECT, 2.0));
        md.append(p99.ratioRow("rejection path, fields on, p99", "rejected: Sluice, fields on", NGINX_REJECT, 2.0));
        md.append(rps.ratioRow("admitted path, fields off, req/s", "admitted: Sluice, fields off", NGINX_ADMIT, 0.9));
        md.append(rps.ratioRow("admitted path, fields on, req/s", "admitted: Sluice, fields on", NGINX_ADMIT, 0.9));
        md.append(p99.ratioRow("admitted path, fields on, p99", "admitted: Sluice, fields on", NGINX_ADMIT, Double.NaN));
        md.append("\nAdmitted path, p99 added over direct-to-upstream (target ≤ 1,000 µs):\n\n");
        md.append("| proxy | p99 (µs) | direct p99 (µs) | added (µs) | target |\n|---|---:|---:|---:|---|\n");
        for (String label : List.of("admitted: Sluice, fields on", "admitted: Sluice, fields off", NGINX_ADMIT)) {
            double added = p99.median(label) - p99.median(DIRECT);
            md.append("| ").append(label).append(" | ").append(Table.fmt(p99.median(label))).append(" | ")
                    .append(Table.fmt(p99.median(DIRECT))).append(" | ").append(Table.fmt(added)).append(" | ")
                    .append(label.contains("Sluice") ? (added <= 1000 ? "met" : "missed") : "—").append(" |\n");
            if (label.contains("Sluice")) {
                md.append(Table.target("edge p99 added over direct, " + label, "≤ 1,000 µs", Table.fmt(added) + " µs",
                        added <= 1000));
            }
        }
        if (args.length > 2 && Files.size(Path.of(args[2])) > 0) {
            md.append(h2c(Files.readAllLines(Path.of(args[2])), args.length > 3 ? args[3] : "h2load"));
        }
        md.append("\n### Raw numbers\n\nrequests/s:\n\n").append(rps.rawMarkdown())
                .append("\np50:\n\n").append(p50.rawMarkdown())
                .append("\np99:\n\n").append(p99.rawMarkdown())
                .append("\np99.9:\n\n").append(p999.rawMarkdown());
        System.out.print(md);
    }

    /**
     * The h2c rejection cases ({@code label, requests/s, non-2xx responses, requests} per line, rounds
     * interleaved with the HTTP/1.1 ones): medians, every round and the ratio to nginx.
     */
    static String h2c(List<String> lines, String load) {
        Table rps = new Table("req/s", true);
        Map<String, long[]> statuses = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f.length < 4 || f[1].isEmpty()) {
                continue;
            }
            rps.add(f[0], Double.parseDouble(f[1]));
            long[] s = statuses.computeIfAbsent(f[0], k -> new long[2]);
            s[0] += Long.parseLong(f[2]);
            s[1] += Long.parseLong(f[3]);
        }
        StringBuilder md = new StringBuilder();
        md.append("\n### h2c rejection (").append(load).append(", prior knowledge; medians of the rounds)\n\n");
        md.append("| case | req/s | non-2xx share |\n|---|---:|---:|\n");
        for (String label : statuses.keySet()) {
            long[] s = statuses.get(label);
            md.append("| ").append(label).append(" | ").append(Table.fmt(rps.median(label))).append(" | ")
                    .append(String.format(Locale.ROOT, "%.4f", s[1] == 0 ? 0 : s[0] / (double) s[1])).append(" |\n");
        }
        md.append("\n").append(rps.ratioHeader("nginx"));
        md.append(rps.ratioRow("h2c rejection path, fields off, req/s", "h2c rejected: Sluice, fields off",
                H2C_NGINX_REJECT, 1.0));
        md.append(rps.ratioRow("h2c rejection path, fields on, req/s", "h2c rejected: Sluice, fields on",
                H2C_NGINX_REJECT, Double.NaN));
        md.append("\nh2c requests/s, every round:\n\n").append(rps.rawMarkdown());
        return md.toString();
    }
}
