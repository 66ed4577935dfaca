package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.shedding.CriticalityShedder;
import dev.sluice.edge.route.Criticality;
import dev.sluice.time.TimeSource;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC §3.9 under real load over loopback: a deliberately slow upstream (100 ms per request) behind a
 * static limit of 20 in flight (capacity ≈ 200 req/s), offered 3× that (≈ 600 req/s for 3 s), mixed
 * criticalities. Ratios with margins, no timings.
 *
 * <p>The sheddable users are open loop (one request every 100 ms each, answered or not). The two CRITICAL
 * users are closed loop (the next request on the next 100 ms tick, but not before the previous answer), so
 * CRITICAL never holds more than 2 in flight: the reserved share, 18 − 16 slots. That is the condition of
 * the "≥ 95 % until the reserved share is used"; an open-loop critical user on a loaded machine,
 * whose answers take 200–300 ms, holds 3 and is rightly shed past the share (it was, at 90 %, once).
 */
@Tag("slow")
@Timeout(180)
class SheddingLoadHttpTest {

    private static final int LIMIT = 20;
    private static final Duration UPSTREAM_LATENCY = Duration.ofMillis(100);

    @Test
    void atThreeTimesCapacitySheddableGoesFirstAndCriticalKeepsNinetyFivePercent() throws Exception {
        // the ceilings that make the order (reserved share 20 %): CRITICAL 18, SHEDDABLE_PLUS 16, SHEDDABLE 14
        assertThat(CriticalityShedder.ceiling(Criticality.CRITICAL, LIMIT, 20)).isEqualTo(18);
        assertThat(CriticalityShedder.ceiling(Criticality.SHEDDABLE_PLUS, LIMIT, 20)).isEqualTo(16);
        assertThat(CriticalityShedder.ceiling(Criticality.SHEDDABLE, LIMIT, 20)).isEqualTo(14);

        ExecutorService upstreamThreads = Executors.newVirtualThreadPerTaskExecutor();
        HttpServer upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        // the deliberately slow upstream of the issue: each answer is written 100 ms after the request
        // arrived, from a scheduler (the upstream's latency, not a wait of the test)
        ScheduledExecutorService upstreamLatency = Executors.newScheduledThreadPool(2);
        upstream.createContext("/", ex -> upstreamLatency.schedule(() -> {
            byte[] body = "{\"ok\":true}".getBytes();
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
            return null;
        }, UPSTREAM_LATENCY.toMillis(), TimeUnit.MILLISECONDS));
        upstream.setExecutor(upstreamThreads);
        upstream.start();
        EdgeConfig config = EdgeConfig.parse("load.yaml", """
                admin: { port: 0 }
                shedding: { mode: static, limit: %d, reserved-percent: 20 }
                plans:
                  big:
                    policies:
                      - { name: burst, kind: burst, q: 100000, w: 1 }
                keys: { sk_load: big }
                routes:
                  - { method: GET, path: /v1/labels, criticality: CRITICAL }
                  - { method: GET, path: /v1/tracking, criticality: SHEDDABLE_PLUS }
                  - { method: GET, path: /v1/quotes, criticality: SHEDDABLE }
                """.formatted(LIMIT)).withListenPort(0)
                .withUpstreamUrl(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
        ScheduledExecutorService ticks = Executors.newScheduledThreadPool(2);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
        try (EdgeServer edge = EdgeServer.start(config, EdgeOptions.defaults().withTime(TimeSource.system()))) {
            // users sending one request every 100 ms each: 2 CRITICAL, 29 SHEDDABLE_PLUS, 29 SHEDDABLE = 600/s,
            // about three times the 200/s that 20 slots of 100 ms can carry; CRITICAL holds at most 2 in flight,
            // the 2 slots (18 - 16) only CRITICAL* may take
            Map<Criticality, String> paths = Map.of(Criticality.CRITICAL, "/v1/labels",
                    Criticality.SHEDDABLE_PLUS, "/v1/tracking", Criticality.SHEDDABLE, "/v1/quotes");
            Map<Criticality, Integer> users = new EnumMap<>(Map.of(Criticality.CRITICAL, 2,
                    Criticality.SHEDDABLE_PLUS, 29, Criticality.SHEDDABLE, 29));
            Map<Criticality, AtomicInteger> ok = new EnumMap<>(Criticality.class);
            Map<Criticality, AtomicInteger> shed = new EnumMap<>(Criticality.class);
            Map<Criticality, AtomicInteger> other = new EnumMap<>(Criticality.class);
            // what an answer that is neither 200 nor 503 was: its status, or the exception's class and message
            Map<String, AtomicInteger> otherKinds = new java.util.concurrent.ConcurrentHashMap<>();
            List<CompletableFuture<?>> all = java.util.Collections.synchronizedList(new ArrayList<>());
            int ticksPerUser = 30; // 3 s
            CompletableFuture<Void> done = new CompletableFuture<>();
            List<CompletableFuture<Void>> closedLoops = new ArrayList<>();
            AtomicInteger usersLeft = new AtomicInteger(users.get(Criticality.SHEDDABLE_PLUS)
                    + users.get(Criticality.SHEDDABLE));
            for (Criticality c : users.keySet()) {
                ok.put(c, new AtomicInteger());
                shed.put(c, new AtomicInteger());
                other.put(c, new AtomicInteger());
                URI uri = URI.create("http://127.0.0.1:" + edge.port() + paths.get(c));
                for (int u = 0; u < users.get(c); u++) {
                    AtomicInteger sent = new AtomicInteger();
                    long offsetMillis = (u * 100L) / users.get(c); // spread the users over the 100 ms
                    if (c.isCritical()) {
                        closedLoops.add(closedLoopUser(ticks, http, uri, ticksPerUser, offsetMillis,
                                (r, e) -> count(c, r, e, ok, shed, other, otherKinds)));
                        continue;
                    }
                    // set before the user's last tick, ticksPerUser periods of 100 ms after it starts
                    AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
                    self.set(ticks.scheduleAtFixedRate(() -> {
                        if (sent.incrementAndGet() > ticksPerUser) {
                            self.get().cancel(false);
                            if (usersLeft.decrementAndGet() == 0) {
                                done.complete(null);
                            }
                            return;
                        }
                        HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                                .header("Authorization", "Bearer sk_load").GET().build();
                        all.add(http.sendAsync(req, HttpResponse.BodyHandlers.ofString())
                                .whenComplete((r, e) -> count(c, r, e, ok, shed, other, otherKinds)));
                    }, offsetMillis, 100, TimeUnit.MILLISECONDS));
                }
            }
            done.get(60, TimeUnit.SECONDS);
            CompletableFuture.allOf(closedLoops.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).handle((x, e) -> null)
                    .get(60, TimeUnit.SECONDS);

            Map<Criticality, Double> success = new EnumMap<>(Criticality.class);
            for (Criticality c : users.keySet()) {
                int n = ok.get(c).get() + shed.get(c).get() + other.get(c).get();
                assertThat(n).isEqualTo(users.get(c) * ticksPerUser);
                success.put(c, ok.get(c).get() / (double) n);
                System.out.printf("shedding at 3x: %-14s sent %4d, 200 %4d, 503 shed %4d, other %d: success %.1f %%%n",
                        c, n, ok.get(c).get(), shed.get(c).get(), other.get(c).get(), 100 * success.get(c));
            }
            // SPEC §3.9: CRITICAL keeps >= 95 % while its load is within the reserved share
            assertThat(success.get(Criticality.CRITICAL)).isGreaterThanOrEqualTo(0.95);
            // SHEDDABLE is shed first: it succeeds no more often than SHEDDABLE_PLUS, which succeeds less than CRITICAL
            assertThat(success.get(Criticality.SHEDDABLE)).isLessThanOrEqualTo(success.get(Criticality.SHEDDABLE_PLUS));
            assertThat(success.get(Criticality.SHEDDABLE_PLUS)).isLessThan(success.get(Criticality.CRITICAL));
            // shedding did happen: at 3x, at most ~1/3 of the non-critical load fits (16 of the 58 users' worth)
            assertThat(success.get(Criticality.SHEDDABLE)).isLessThan(0.6);
            for (Criticality c : users.keySet()) {
                assertThat(other.get(c).get()).as("no 429 or upstream error for %s (seen: %s)", c, otherKinds).isZero();
            }
            // SPEC §3.13: shed requests are their own outcome, apart from 429s and upstream errors
            String metrics = scrape(http, edge.adminPort());
            int shedTotal = shed.values().stream().mapToInt(AtomicInteger::get).sum();
            assertThat(sum(metrics, "sluice_edge_decisions_total", "outcome=\"shed\"")).isEqualTo(shedTotal);
            assertThat(sum(metrics, "sluice_edge_decisions_total", "outcome=\"rate_limited\"")).isZero();
            assertThat(sum(metrics, "sluice_edge_upstream_responses_total", "class=\"5xx\"")).isZero();
        } finally {
            ticks.shutdownNow();
            upstream.stop(0);
            upstreamThreads.shutdownNow();
            upstreamLatency.shutdownNow();
        }
    }

    private static void count(Criticality c, HttpResponse<String> r, Throwable e,
            Map<Criticality, AtomicInteger> ok, Map<Criticality, AtomicInteger> shed,
            Map<Criticality, AtomicInteger> other, Map<String, AtomicInteger> otherKinds) {
        int s = r == null ? -1 : r.statusCode();
        (s == 200 ? ok : s == 503 ? shed : other).get(c).incrementAndGet();
        if (s != 200 && s != 503) {
            String kind = r != null ? s + " " + r.body() : String.valueOf(e);
            otherKinds.computeIfAbsent(kind.length() > 200 ? kind.substring(0, 200) : kind,
                    k -> new AtomicInteger()).incrementAndGet();
        }
    }

    /**
     * A user that sends {@code requests} requests, each on its 100 ms tick but never before the previous one
     * was answered (at most one in flight); completes after the last answer.
     */
    private static CompletableFuture<Void> closedLoopUser(ScheduledExecutorService ticks, HttpClient http, URI uri,
            int requests, long offsetMillis,
            java.util.function.BiConsumer<HttpResponse<String>, Throwable> answered) {
        CompletableFuture<Void> finished = new CompletableFuture<>();
        long startNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(offsetMillis);
        AtomicInteger sent = new AtomicInteger();
        Runnable[] next = new Runnable[1];
        next[0] = () -> {
            int k = sent.getAndIncrement();
            if (k == requests) {
                finished.complete(null);
                return;
            }
            HttpRequest req = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                    .header("Authorization", "Bearer sk_load").GET().build();
            http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                answered.accept(r, e);
                long dueNanos = startNanos + (k + 1) * TimeUnit.MILLISECONDS.toNanos(100);
                ticks.schedule(next[0], Math.max(0, dueNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            });
        };
        ticks.schedule(next[0], offsetMillis, TimeUnit.MILLISECONDS);
        return finished;
    }

    private static String scrape(HttpClient http, int adminPort) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The sum of a counter's samples whose labels contain {@code label}. */
    static long sum(String metrics, String name, String label) {
        long total = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name + "{") && line.contains(label)) {
                total += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return total;
    }
}
