package dev.sluice.bench.keys;

import dev.sluice.bench.Table;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.RequestHead;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * When the store misses its target: one more round of each side under Java Flight Recorder (execution samples
 * every millisecond), and the frames that hold the time, by method: on top of the stack (self) and anywhere in
 * it (total), as shares of the samples taken on the driving threads and the lookup pool.
 */
final class Profiles {

    private Profiles() {}

    static String profile(EdgeDecider store, EdgeDecider file, RequestHead[] heads, int hot, int decisions,
            int hitPercent, int coldFrom, int threads) throws Exception {
        int[] stream = KeysRun.stream(hot, decisions, hitPercent, coldFrom, 99);
        int[] hitsOnly = KeysRun.stream(hot, decisions, 100, 0, 98);
        String storeTable = sampled(() -> Driver.run(store, heads, stream, threads));
        String storeHits = sampled(() -> Driver.run(store, heads, hitsOnly, threads));
        String fileHits = sampled(() -> Driver.run(file, heads, hitsOnly, threads));
        return "#### Profile (JFR execution samples every 1 ms of the driving threads and the lookup pool; target "
                + "missed)\n\nOne more round of each case after the counted ones. *self*: the method on top of the "
                + "stack; *total*: anywhere in it. A driving thread waiting while "
                + Driver.MAX_IN_FLIGHT + " of its requests wait for a lookup sleeps (`LockSupport.parkNanos`) and is not "
                + "sampled.\n\n"
                + "PostgreSQL keys, " + hitPercent + " % cache hits:\n\n" + storeTable
                + "\nPostgreSQL keys, 100 % cache hits:\n\n" + storeHits
                + "\nKey file, the same 100 % stream:\n\n" + fileHits + "\n";
    }

    private interface Round {
        Driver.Outcomes run() throws Exception;
    }

    private static String sampled(Round round) throws Exception {
        Path jfr = Files.createTempFile("keys-bench", ".jfr");
        try {
            try (Recording r = new Recording()) {
                r.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(1));
                r.start();
                round.run();
                r.stop();
                r.dump(jfr);
            }
            Map<String, Integer> self = new HashMap<>();
            Map<String, Integer> total = new HashMap<>();
            int samples = 0;
            for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
                if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                    continue;
                }
                String thread = e.getThread("sampledThread") == null ? "" : e.getThread("sampledThread").getJavaName();
                if (thread == null || !(thread.startsWith("keys-bench") || thread.startsWith("sluice-keys-lookup"))) {
                    continue;
                }
                List<RecordedFrame> frames = e.getStackTrace().getFrames();
                if (frames.isEmpty()) {
                    continue;
                }
                samples++;
                self.merge(name(frames.get(0)), 1, Integer::sum);
                Set<String> seen = new HashSet<>();
                for (RecordedFrame f : frames) {
                    String n = name(f);
                    if (seen.add(n)) {
                        total.merge(n, 1, Integer::sum);
                    }
                }
            }
            int n = samples;
            StringBuilder md = new StringBuilder("| method | self | total |\n|---|---:|---:|\n");
            Map<String, Integer> selfFinal = self;
            // the heaviest self frames, then the heaviest Sluice frames by total
            Set<String> rows = new java.util.LinkedHashSet<>();
            self.entrySet().stream().sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(10)
                    .forEach(en -> rows.add(en.getKey()));
            total.entrySet().stream().filter(en -> en.getKey().startsWith("dev.sluice.") && !en.getKey().contains(".bench."))
                    .sorted(Map.Entry.<String, Integer>comparingByValue().reversed()).limit(12)
                    .forEach(en -> rows.add(en.getKey()));
            for (String m : rows) {
                md.append("| `").append(m).append("` | ").append(pct(selfFinal.getOrDefault(m, 0), n)).append(" | ")
                        .append(pct(total.getOrDefault(m, 0), n)).append(" |\n");
            }
            md.append("\n").append(Table.fmt(n)).append(" samples.\n");
            return md.toString();
        } finally {
            Files.deleteIfExists(jfr);
        }
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String pct(int part, int whole) {
        return whole == 0 ? "n/a" : String.format(Locale.ROOT, "%.1f %%", 100.0 * part / whole);
    }
}
