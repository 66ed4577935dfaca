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
    static final String UNBOUNDED_REJECT = "rejected: Sluice, fields off, bounds off";
    static final String OPEN_DIRECT = "open loop: direct to upstream (nginx static)";
    static final String OPEN_NGINX = "open loop: nginx limit_req + proxy_pass";

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
        if (rps.median(UNBOUNDED_REJECT) > 0) {
            md.append("\nThe resource bounds' cost on the rejection path (the fields-off edge with its bounds at their"
                    + " defaults against the same edge with them off or out of reach; target: at most 5 % of the rate):\n\n");
            md.append(rps.ratioHeader("bounds off"));
            md.append(rps.ratioRow("rejection path, bounds at defaults / bounds off, req/s", "rejected: Sluice, fields off",
                    UNBOUNDED_REJECT, 0.95));
        }
        md.append("\nAdmitted path, p99 added over direct-to-upstream at saturation (wrk's closed loop: every case's"
                + " p99 here is queueing in a saturated machine, so the difference is noise; the target is judged at a"
                + " fixed offered rate below):\n\n");
        md.append("| proxy | p99 (µs) | direct p99 (µs) | added (µs) | target |\n|---|---:|---:|---:|---|\n");
        for (String label : List.of("admitted: Sluice, fields on", "admitted: Sluice, fields off", NGINX_ADMIT)) {
            double added = p99.median(label) - p99.median(DIRECT);
            md.append("| ").append(label).append(" | ").append(Table.fmt(p99.median(label))).append(" | ")
                    .append(Table.fmt(p99.median(DIRECT))).append(" | ").append(Table.fmt(added)).append(" | ")
                    .append("—").append(" |\n");
        }
        if (args.length > 2 && Files.size(Path.of(args[2])) > 0) {
            md.append(h2c(Files.readAllLines(Path.of(args[2])), args.length > 3 ? args[3] : "h2load"));
        }
        if (args.length > 4 && Files.size(Path.of(args[4])) > 0) {
            md.append(openLoop(Files.readAllLines(Path.of(args[4])), args.length > 5 ? args[5] : "fixed rate"));
        }
        md.append("\n### Raw numbers\n\nrequests/s:\n\n").append(rps.rawMarkdown())
                .append("\np50:\n\n").append(p50.rawMarkdown())
                .append("\np99:\n\n").append(p99.rawMarkdown())
                .append("\np99.9:\n\n").append(p999.rawMarkdown());
        System.out.print(md);
    }

    /**
     * The admitted path at a fixed offered rate ({@code OpenLoop}: {@code label, achieved req/s, p50, p99,
     * p99.9, max (µs from the due time), non-2xx, answers, late sends} per line, rounds interleaved): the
     * p99 each proxy adds over going direct, per round and as the median of the rounds' differences.
     */
    static String openLoop(List<String> lines, String load) {
        Table rate = new Table("req/s", true);
        Table p50 = new Table("µs", false);
        Table p99 = new Table("µs", false);
        Table p999 = new Table("µs", false);
        Map<String, long[]> counts = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f.length < 9) {
                continue;
            }
            rate.add(f[0], Double.parseDouble(f[1]));
            p50.add(f[0], Double.parseDouble(f[2]));
            p99.add(f[0], Double.parseDouble(f[3]));
            p999.add(f[0], Double.parseDouble(f[4]));
            long[] c = counts.computeIfAbsent(f[0], k -> new long[3]);
            c[0] += Long.parseLong(f[6]);
            c[1] += Long.parseLong(f[7]);
            c[2] += Long.parseLong(f[8]);
        }
        StringBuilder md = new StringBuilder();
        md.append("\n### Admitted path at a fixed offered rate (open loop, ").append(load)
                .append("; latency from each request's due time; medians of the rounds)\n\n");
        md.append("| case | achieved (req/s) | p50 (µs) | p99 (µs) | p99.9 (µs) | non-2xx share | sent > 1 ms late |\n")
                .append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (String label : counts.keySet()) {
            long[] c = counts.get(label);
            md.append("| ").append(label).append(" | ").append(Table.fmt(rate.median(label))).append(" | ")
                    .append(Table.fmt(p50.median(label))).append(" | ").append(Table.fmt(p99.median(label)))
                    .append(" | ").append(Table.fmt(p999.median(label))).append(" | ")
                    .append(String.format(Locale.ROOT, "%.4f", c[1] == 0 ? 0 : c[0] / (double) c[1])).append(" | ")
                    .append(String.format(Locale.ROOT, "%.4f", c[1] == 0 ? 0 : c[2] / (double) c[1])).append(" |\n");
        }
        List<Double> direct = p99.values(OPEN_DIRECT);
        md.append("\np99 added over direct (target ≤ 1,000 µs; each round's proxy p99 less the same round's direct p99,"
                + " then the median of those differences):\n\n");
        md.append("| proxy | added p99, median (µs) | every round (µs) | target |\n|---|---:|---|---|\n");
        for (String label : counts.keySet()) {
            if (label.equals(OPEN_DIRECT)) {
                continue;
            }
            List<Double> proxied = p99.values(label);
            Table added = new Table("µs", false);
            StringBuilder each = new StringBuilder();
            for (int r = 0; r < Math.min(direct.size(), proxied.size()); r++) {
                double d = proxied.get(r) - direct.get(r);
                added.add(label, d);
                each.append(r == 0 ? "" : ", ").append(Table.fmt(d));
            }
            double median = added.median(label);
            boolean sluice = label.contains("Sluice");
            md.append("| ").append(label).append(" | ").append(Table.fmt(median)).append(" | ").append(each)
                    .append(" | ").append(sluice ? (median <= 1000 ? "met" : "missed") : "—").append(" |\n");
            if (sluice) {
                md.append(Table.target("edge p99 added over direct at a fixed rate, " + label, "≤ 1,000 µs",
                        Table.fmt(median) + " µs", median <= 1000));
            }
        }
        md.append("\nOpen-loop p99, every round:\n\n").append(p99.rawMarkdown());
        return md.toString();
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
