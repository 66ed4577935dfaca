package dev.sluice.delivery.crash;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.delivery.DeadLetter;
import dev.sluice.delivery.DeadLetterReason;
import dev.sluice.delivery.Delivery;
import dev.sluice.delivery.DeliveryConfig;
import dev.sluice.delivery.DeliveryStatus;
import dev.sluice.delivery.Destination;
import dev.sluice.delivery.EnqueueResult;
import dev.sluice.delivery.LedgerEntry;
import dev.sluice.delivery.LedgerState;
import dev.sluice.delivery.NewEvent;
import dev.sluice.delivery.Rate;
import dev.sluice.delivery.jdbc.JdbcDeliveryStore;
import dev.sluice.delivery.support.Fixtures;
import dev.sluice.delivery.support.TestReceiver;
import dev.sluice.delivery.support.TestReceiver.Answer;
import dev.sluice.delivery.support.TestReceiver.Arrival;
import dev.sluice.delivery.support.TestReceiver.Hang;
import dev.sluice.delivery.support.TestReceiver.Respond;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §6.4 with real processes: N events to a local receiver that answers 200, 429 with
 * Retry-After, 503 (with and without), 400, or hangs past the worker's timeout, at random; the
 * worker runs in a separate JVM that is killed with SIGKILL K times at random moments and
 * restarted. Afterwards every event is delivered or dead-lettered, a key reached the receiver
 * again after a 2xx only when a kill fell between the start of the attempt that got that 2xx (at most
 * the request timeout before it) and the retry (the crash window between sending and the ledger
 * commit) or the worker logged that it never got that answer
 * (no answer within its timeout, or its lease lapsed before the commit), and no Retry-After was
 * undercut.
 *
 * <p>Size by system properties: {@code sluice.crash.events} (default 600), {@code sluice.crash.kills}
 * (5), {@code sluice.crash.seed}. The full run is {@code -Dsluice.crash.events=10000
 * -Dsluice.crash.kills=20}. Waits are scaled by configuration, not by changing the rules: the
 * receiver asks for 1–2 s Retry-After, the worker's request timeout is 500 ms and its lease 5 s
 * (longer than any Retry-After asked, so that a row reclaimed after a crash cannot undercut a hint
 * the crashed worker never got to record).
 */
@Tag("slow")
@Timeout(180)
class CrashTest {

    static final int EVENTS = Integer.getInteger("sluice.crash.events", 600);
    static final int KILLS = Integer.getInteger("sluice.crash.kills", 5);
    static final long SEED = Long.getLong("sluice.crash.seed", 20_260_301L);
    static final Duration MIN_UP = Duration.ofMillis(Long.getLong("sluice.crash.minUpMillis", 700));
    static final Duration MAX_UP = Duration.ofMillis(Long.getLong("sluice.crash.maxUpMillis", 3_000));
    static final Duration SETTLE = Duration.ofSeconds(Long.getLong("sluice.crash.settleSeconds", 300));

    static final int CONCURRENCY = 16;
    static final Duration REQUEST_TIMEOUT = Duration.ofMillis(500);
    static final Duration LEASE = Duration.ofSeconds(5);

    @TempDir
    Path dir;

    final TimeSource time = TimeSource.system();

    /** Deterministic per (key, arrival number), whatever order the requests come in. */
    static Answer policy(String key, int n) {
        SplittableRandom r = new SplittableRandom(SEED * 1_000_003L + key.hashCode() * 31L + n);
        double x = r.nextDouble();
        if (n == 1 && x < 0.02) {
            return new Respond(400, 0); // terminal: dead letter
        }
        if (n >= 3) {
            return new Respond(200, 0);
        }
        double y = r.nextDouble();
        if (y < 0.55) {
            return new Respond(200, 0);
        } else if (y < 0.70) {
            return new Respond(429, 1 + r.nextInt(2));
        } else if (y < 0.80) {
            return new Respond(503, 1);
        } else if (y < 0.88) {
            return new Respond(503, 0); // no hint: the §6.3 backoff
        }
        return new Hang(REQUEST_TIMEOUT.plusMillis(500));
    }

    @Test
    void killedWorkersLoseNothingDuplicateOnlyInTheCrashWindowAndNeverUndercutRetryAfter() throws Exception {
        Path db = dir.resolve("crash.db");
        Path log = dir.resolve("worker.log");
        SplittableRandom killRandom = new SplittableRandom(SEED);
        Instant started = time.now();
        try (TestReceiver receiver = new TestReceiver(CrashTest::policy)) {
            enqueueAll(db, receiver);

            List<Instant> kills = new ArrayList<>();
            Process worker = startWorker(db, log);
            for (int k = 0; k < KILLS; k++) {
                long upMillis = killRandom.nextLong(MIN_UP.toMillis(), MAX_UP.toMillis() + 1);
                boolean exited = worker.waitFor(upMillis, TimeUnit.MILLISECONDS);
                assertThat(exited).as("the worker died by itself; see %s:%n%s", log, tail(log)).isFalse();
                kills.add(time.now());
                worker.destroyForcibly(); // SIGKILL
                worker.waitFor();
                worker = startWorker(db, log);
            }

            DeliveryStatus status = awaitSettled(db, worker);
            worker.destroyForcibly();
            worker.waitFor();

            Report report = check(db, receiver, kills, workerAccount(log));
            String summary = String.format(
                    "crash test: events=%d kills=%d delivered=%d dead-lettered=%d requests=%d"
                            + " duplicates-after-2xx=%d (%d after a kill, %d after the worker missed the answer or lost the lease)"
                            + " undercuts=%d overlaps=%d elapsed=%ds",
                    EVENTS, kills.size(), status.count(LedgerState.DELIVERED), status.count(LedgerState.DEAD),
                    receiver.requests(), report.duplicatesAfter2xx, report.afterKill, report.afterMiss,
                    receiver.undercuts().size(),
                    receiver.overlaps().size(), Duration.between(started, time.now()).toSeconds());
            System.out.println(summary);
            Files.writeString(Path.of("target", "crash-test-summary.txt"), summary + System.lineSeparator());

            assertThat(status.count(LedgerState.DELIVERED) + status.count(LedgerState.DEAD))
                    .as("every event delivered or dead-lettered").isEqualTo(EVENTS);
            assertThat(report.unexplainedDuplicates).as("duplicates after a 2xx with no kill in between; worker log:%n%s",
                    tail(log)).isEmpty();
            assertThat(receiver.undercuts()).as("Retry-After undercut").isEmpty();
            assertThat(report.mismatches).as("ledger disagrees with the receiver").isEmpty();
        }
    }

    private void enqueueAll(Path db, TestReceiver receiver) throws SQLException {
        try (JdbcDeliveryStore store = JdbcDeliveryStore.open("sqlite:" + db);
                Delivery delivery = Delivery.builder(store).config(DeliveryConfig.defaults()).build();
                Connection c = DriverManager.getConnection("jdbc:sqlite:" + db)) {
            delivery.registerDestination(new Destination("receiver", receiver.url("/hooks"), new Rate(2_000, 200),
                    Fixtures.SECRET, true));
            // one outbox transaction for all of them, on the caller's own connection
            c.setAutoCommit(false);
            for (int i = 0; i < EVENTS; i++) {
                EnqueueResult r = delivery.enqueue(c, NewEvent.of("receiver", "purchase.completed",
                        "{\"order\":" + i + "}").withIdempotencyKey("game-8472:purchase:" + i));
                assertThat(r.outcome()).isEqualTo(EnqueueResult.Outcome.ENQUEUED);
            }
            c.commit();
        }
    }

    private Process startWorker(Path db, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), CrashWorkerMain.class.getName(), db.toString(),
                Integer.toString(CONCURRENCY), Long.toString(REQUEST_TIMEOUT.toMillis()), Long.toString(LEASE.toMillis()));
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return pb.start();
    }

    /** Polls the store until nothing is left to do, pausing by waiting on the worker process. */
    private DeliveryStatus awaitSettled(Path db, Process worker) throws Exception {
        Instant deadline = time.now().plus(SETTLE);
        try (JdbcDeliveryStore store = JdbcDeliveryStore.open("sqlite:" + db)) {
            while (true) {
                DeliveryStatus s = store.status(time.now());
                if (s.unfinished() == 0) {
                    return s;
                }
                assertThat(time.now()).as("still unfinished after %s: %s", SETTLE, s.byState()).isBefore(deadline);
                assertThat(worker.waitFor(300, TimeUnit.MILLISECONDS)).as("the worker died by itself").isFalse();
            }
        }
    }

    record Report(int duplicatesAfter2xx, int afterKill, int afterMiss, List<String> unexplainedDuplicates,
            List<String> mismatches) {
    }

    /**
     * The worker's own account, from its log: by key, the instants at which an attempt ended
     * without an answer or a completion was refused for a lapsed lease ({@link CrashWorkerMain}).
     */
    static Map<String, List<Instant>> workerAccount(Path log) throws IOException {
        Map<String, List<Instant>> byKey = new HashMap<>();
        for (String line : Files.readAllLines(log)) {
            String[] f = line.split(" ");
            if (f.length == 3 && (f[0].equals(CrashWorkerMain.MISSED) || f[0].equals(CrashWorkerMain.LEASE_LOST))) {
                byKey.computeIfAbsent(f[1], k -> new ArrayList<>()).add(Instant.ofEpochMilli(Long.parseLong(f[2])));
            }
        }
        return byKey;
    }

    /**
     * A key reached the receiver again after its 2xx: explained when a kill fell while the attempt
     * that got the 2xx could have been in flight, from the request timeout before the 2xx up to the
     * repeat (the crash window of SPEC §6.4), or when the worker itself recorded that it
     * never got that answer, an attempt without an answer within the request timeout or a lease
     * lapsed before the commit (a process starved for seconds on a loaded machine). Either way the
     * repeat carries the same key, which is what §6.4 allows; anything else is a defect.
     */
    private Report check(Path db, TestReceiver receiver, List<Instant> kills, Map<String, List<Instant>> account) {
        int duplicates = 0;
        int afterKill = 0;
        int afterMiss = 0;
        List<String> unexplained = new ArrayList<>();
        List<String> mismatches = new ArrayList<>();
        Map<String, LedgerEntry> ledger = new HashMap<>();
        Map<String, DeadLetter> dead = new HashMap<>();
        try (JdbcDeliveryStore store = JdbcDeliveryStore.open("sqlite:" + db)) {
            for (LedgerState s : List.of(LedgerState.DELIVERED, LedgerState.DEAD)) {
                store.entries(s, EVENTS + 1).forEach(e -> ledger.put(e.event().idempotencyKey(), e));
            }
            store.deadLetters(EVENTS + 1).forEach(d -> dead.put(d.idempotencyKey(), d));
        }
        for (int i = 0; i < EVENTS; i++) {
            String key = "game-8472:purchase:" + i;
            LedgerEntry e = ledger.get(key);
            Instant ok = receiver.firstSuccess(key);
            if (e == null) {
                mismatches.add(key + " is neither delivered nor dead");
                continue;
            }
            if (e.state() == LedgerState.DELIVERED && ok == null) {
                mismatches.add(key + " delivered in the ledger, never answered 2xx");
            }
            if (e.state() == LedgerState.DEAD) {
                DeadLetter d = dead.get(key);
                if (ok != null) {
                    mismatches.add(key + " dead in the ledger but answered 2xx");
                } else if (d == null || d.reason() != DeadLetterReason.TERMINAL_RESPONSE || d.finalStatus() != 400) {
                    mismatches.add(key + " dead for another reason than the receiver's 400: " + d);
                }
            }
            if (ok == null) {
                continue;
            }
            List<Arrival> after = receiver.arrivals(key).stream().filter(a -> a.at().isAfter(ok)).toList();
            if (!after.isEmpty()) {
                duplicates++;
                Instant retry = after.get(0).at();
                // the crash window starts when the attempt that got this 2xx may have been sent: a worker
                // killed with the request on the wire (or SIGKILLed a moment after the kill was noted) never
                // commits the answer the receiver stamps after the kill; an attempt older than the request
                // timeout would have been abandoned by a live worker and recorded as missed
                Instant from = ok.minus(REQUEST_TIMEOUT);
                boolean killInWindow = kills.stream().anyMatch(k -> !k.isBefore(from) && !k.isAfter(retry));
                boolean missed = account.getOrDefault(key, List.of()).stream()
                        .anyMatch(m -> !m.isBefore(from) && !m.isAfter(retry));
                if (killInWindow) {
                    afterKill++;
                } else if (missed) {
                    afterMiss++;
                } else {
                    unexplained.add(key + ": 2xx at " + ok + ", again at " + retry);
                }
            }
        }
        return new Report(duplicates, afterKill, afterMiss, unexplained, mismatches);
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
