package dev.sluice.sim.report;

import dev.sluice.sim.Headline;
import dev.sluice.sim.SecondRow;
import dev.sluice.sim.SimulationResult;
import dev.sluice.sim.VariantResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.List;
import java.util.Map;

/**
 * The per-second series as CSV ({@code series.csv}) and as JSON lines ({@code --json}). Columns are
 * {@link SecondRow#COLUMNS} after {@code variant}; numbers are written locale-independently, so the
 * same result gives the same bytes. Stateless; thread-safe.
 */
public final class SeriesWriter {

    private SeriesWriter() {
    }

    /**
     * {@code variant,second,calls,...} then one line per variant and second; the latency cells of a
     * second without successes are empty.
     */
    public static void csv(SimulationResult result, Writer out) {
        try {
            out.write("variant," + String.join(",", SecondRow.COLUMNS) + "\n");
            for (VariantResult v : result.variants()) {
                String name = csvText(v.variant().name());
                for (SecondRow r : v.rows()) {
                    out.write(name);
                    for (String value : values(r, "")) {
                        out.write(',');
                        out.write(value);
                    }
                    out.write('\n');
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The values of the {@code type} field of {@link #jsonLines}, in the order the lines come. */
    public static final List<String> JSON_LINE_TYPES = List.of("scenario", "second", "headline");

    /**
     * One JSON object per line, each with a {@code type} field saying what it is (so a consumer can
     * filter with {@code jq 'select(.type == "second")'}):
     * <ul>
     *   <li>{@code scenario} — first, once: {@code {"type":"scenario","name":"jitter-blip","seed":1,
     *       "duration_s":30,"variants":["no jitter","jitter"]}};</li>
     *   <li>{@code second} — one per variant and simulated second, in variant order:
     *       {@code {"type":"second","variant":"jitter","second":5,"calls":0,...}} with the columns of
     *       {@link SecondRow#COLUMNS} (latencies {@code null} in a second without successes);</li>
     *   <li>{@code headline} — one per variant, last:
     *       {@code {"type":"headline","variant":"jitter","headline":{...}}} ({@code null} for a figure
     *       that does not apply).</li>
     * </ul>
     */
    public static void jsonLines(SimulationResult result, Writer out) {
        try {
            StringBuilder first = new StringBuilder("{\"type\":\"scenario\",\"name\":")
                    .append(jsonText(result.scenario().name())).append(",\"seed\":").append(result.seed())
                    .append(",\"duration_s\":").append(Numbers.format(result.scenario().duration().toNanos() / 1e9))
                    .append(",\"variants\":[");
            for (int i = 0; i < result.variants().size(); i++) {
                first.append(i == 0 ? "" : ",").append(jsonText(result.variants().get(i).variant().name()));
            }
            out.write(first.append("]}\n").toString());
            for (VariantResult v : result.variants()) {
                String name = jsonText(v.variant().name());
                for (SecondRow r : v.rows()) {
                    StringBuilder b = new StringBuilder(256).append("{\"type\":\"second\",\"variant\":").append(name);
                    List<String> values = values(r, "null");
                    for (int i = 0; i < values.size(); i++) {
                        b.append(",\"").append(SecondRow.COLUMNS.get(i)).append("\":").append(values.get(i));
                    }
                    out.write(b.append("}\n").toString());
                }
            }
            for (VariantResult v : result.variants()) {
                out.write("{\"type\":\"headline\",\"variant\":" + jsonText(v.variant().name()) + ",\"headline\":"
                        + json(v.headline()) + "}\n");
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The headline figures as one JSON object, in {@link Headline#METRICS} order. */
    public static String json(Headline h) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Double> e : h.values().entrySet()) {
            if (b.length() > 1) {
                b.append(',');
            }
            double v = e.getValue();
            b.append('"').append(e.getKey()).append("\":").append(Double.isNaN(v) ? "null" : Numbers.format(v));
        }
        return b.append('}').toString();
    }

    /** @param missing what stands for a figure that does not apply (no latency in a second without successes) */
    static List<String> values(SecondRow r, String missing) {
        return List.of(Integer.toString(r.second()), Long.toString(r.calls()), Long.toString(r.requests()),
                Long.toString(r.retries()), Long.toString(r.accepts()), Long.toString(r.rejected()),
                Long.toString(r.drops()), Long.toString(r.throttled()), Long.toString(r.shed()),
                Long.toString(r.successes()), Long.toString(r.failures()), Numbers.format(r.waiting()),
                orMissing(r.latencyMeanMillis(), missing), orMissing(r.latencyP99Millis(), missing));
    }

    private static String orMissing(double v, String missing) {
        return Double.isNaN(v) ? missing : Numbers.format(v);
    }

    static String csvText(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    static String jsonText(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
