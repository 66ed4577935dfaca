package dev.sluice.edge.protect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.testing.RawHttp;
import dev.sluice.time.TimeSource;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SPEC §3.9, defects 5 and 1 under real load over loopback: one key flooding a CRITICAL route, or holding
 * CRITICAL slots with uploads that drip a byte every 2 s, must leave another tenant's CRITICAL route at
 * ≥ 95 % success (SPEC §3.9's guarantee for CRITICAL, per tenant). A deliberately slow upstream (1 s per
 * answer) behind a static limit of 8 in flight: capacity ≈ 8 req/s (small, so that the flood at 10x fits a
 * shared 2-core machine), CRITICAL ceiling 7, and so a fair share
 * of 4 for each of two active keys. Each tenant has its own HTTP client, so the flood cannot hold the other
 * tenant's requests up on the client side.
 */
@Tag("slow")
class FairSheddingHttpTest {

    private static final int LIMIT = 8;
    private static final String CONFIG = """
            admin: { port: 0 }
            shedding: { mode: static, limit: %d, reserved-percent: 20 }
            plans:
              big:
                policies:
                  - { name: burst, kind: burst, q: 100000, w: 1 }
            keys: { sk_heavy: big, sk_other: big }
            routes:
              - { method: POST, path: "/v1/labels:batch", criticality: CRITICAL }
              - { method: POST, path: /v1/upload, criticality: CRITICAL }
              - { method: GET, path: /v1/labels, criticality: CRITICAL }
            """.formatted(LIMIT);

    private ExecutorService upstreamThreads;
    private ScheduledExecutorService upstreamLatency;
    private HttpServer upstream;
    private EdgeServer edge;
    private HttpClient http;
    private HttpClient heavyHttp;

    @BeforeEach
    void start() throws Exception {
        upstreamThreads = Executors.newVirtualThreadPerTaskExecutor();
        upstreamLatency = Executors.newScheduledThreadPool(1);
        upstream = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 1024);
        upstream.createContext("/", ex -> {
            try (InputStream in = ex.getRequestBody()) {
                in.transferTo(java.io.OutputStream.nullOutputStream()); // a dripped body blocks this virtual thread
            }
            upstreamLatency.schedule(() -> {
                byte[] body = "{\"ok\":true}".getBytes();
                ex.sendResponseHeaders(200, body.length);
                ex.getResponseBody().write(body);
                ex.close();
                return null;
            }, 1_000, TimeUnit.MILLISECONDS);
        });
        upstream.setExecutor(upstreamThreads);
        upstream.start();
        EdgeConfig config = EdgeConfig.parse("fair.yaml", CONFIG).withListenPort(0)
                .withUpstreamUrl(URI.create("http://127.0.0.1:" + upstream.getAddress().getPort()));
        edge = EdgeServer.start(config, EdgeOptions.defaults().withTime(TimeSource.system()));
        // the other tenant's client and users run on platform threads: the flood's virtual threads cannot starve them
        http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        heavyHttp = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newVirtualThreadPerTaskExecutor()).build();
    }

    @AfterEach
    void stop() {
        edge.close();
        upstream.stop(0);
        upstreamThreads.shutdownNow();
        upstreamLatency.shutdownNow();
        http.close();
        heavyHttp.close();
    }

    private HttpRequest request(String key, String method, String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + path))
                .timeout(Duration.ofSeconds(20)).header("Authorization", "Bearer " + key);
        return method.equals("GET") ? b.GET().build() : b.POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    }

    /**
     * The other tenant: 2 closed-loop users, each sending {@code requestsPerUser} GET /v1/labels one after the
     * other (an answer takes the upstream's 1 s, at least 100 ms apart); the share of 200s.
     */
    private double otherTenantSuccess(int requestsPerUser) throws Exception {
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger all = new AtomicInteger();
        List<Thread> users = new ArrayList<>();
        for (int u = 0; u < 2; u++) {
            users.add(Thread.ofPlatform().daemon().start(() -> {
                for (int k = 0; k < requestsPerUser; k++) {
                    long next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
                    try {
                        int s = http.send(request("sk_other", "GET", "/v1/labels"),
                                HttpResponse.BodyHandlers.discarding()).statusCode();
                        if (s == 200) {
                            ok.incrementAndGet();
                        }
                    } catch (Exception e) {
                        // counted as a failure
                    }
                    all.incrementAndGet();
                    long wait = next - System.nanoTime();
                    if (wait > 0) {
                        try {
                            Thread.sleep(Duration.ofNanos(wait)); // real time: the users' pace is the load under test
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }));
        }
        for (Thread t : users) {
            t.join(TimeUnit.SECONDS.toMillis(40));
        }
        System.out.printf("other tenant's CRITICAL: %d of %d succeeded%n", ok.get(), all.get());
        assertThat(all.get()).isEqualTo(2 * requestsPerUser);
        return ok.get() / (double) all.get();
    }

    @Test
    @Timeout(120)
    void aKeyFloodingACriticalRouteAtTenTimesCapacityLeavesAnotherTenantsCriticalRouteNinetyFivePercent()
            throws Exception {
        // the other tenant is active first (as the steady tenants of a shared API are)
        assertThat(http.send(request("sk_other", "GET", "/v1/labels"), HttpResponse.BodyHandlers.discarding())
                .statusCode()).isEqualTo(200);
        // the heavy key: open loop, one batch call every 12.5 ms (80/s, 10x the ~8/s the limit carries)
        AtomicInteger heavyOk = new AtomicInteger();
        AtomicInteger heavyAll = new AtomicInteger();
        List<CompletableFuture<?>> sent = java.util.Collections.synchronizedList(new ArrayList<>());
        ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
        try {
            ticks.scheduleAtFixedRate(() -> sent.add(heavyHttp.sendAsync(request("sk_heavy", "POST", "/v1/labels:batch"),
                    HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                        heavyAll.incrementAndGet();
                        if (r != null && r.statusCode() == 200) {
                            heavyOk.incrementAndGet();
                        }
                    })), 0, 12_500, TimeUnit.MICROSECONDS);
            await("the flood fills the heavy key's share").atMost(Duration.ofSeconds(10))
                    .until(() -> heavyAll.get() > heavyOk.get());
            double success = otherTenantSuccess(10);
            ticks.shutdownNow();
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).handle((x, e) -> null)
                    .get(30, TimeUnit.SECONDS);
            System.out.printf("fair share at 10x: heavy key %d of %d succeeded; other tenant %.1f %%%n",
                    heavyOk.get(), heavyAll.get(), 100 * success);

            assertThat(success).isGreaterThanOrEqualTo(0.95); // before: 45.5 % (SPEC §3.9)
            assertThat(heavyOk.get()).as("the heavy key keeps its share").isPositive();
            assertThat(heavyAll.get() - heavyOk.get()).as("and is shed beyond it").isPositive();
        } finally {
            ticks.shutdownNow();
        }
    }

    @Test
    @Timeout(60)
    void uploadsDrippingAByteEveryTwoSecondsLeaveAnotherTenantsCriticalRouteNinetyFivePercent() throws Exception {
        assertThat(http.send(request("sk_other", "GET", "/v1/labels"), HttpResponse.BodyHandlers.discarding())
                .statusCode()).isEqualTo(200);
        // as many drip uploads as the CRITICAL ceiling and more, opened at 8/s (SPEC §3.9)
        List<RawHttp> drips = new ArrayList<>();
        ScheduledExecutorService drip = Executors.newSingleThreadScheduledExecutor();
        try {
            for (int i = 0; i < 9; i++) {
                RawHttp c = new RawHttp(edge.port());
                drips.add(c);
                c.send("POST /v1/upload HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer sk_heavy\r\n"
                        + "Content-Length: 10000000\r\n\r\nx");
                Thread.sleep(125); // real time: uploads opened at 8/s are the load under test
            }
            drip.scheduleAtFixedRate(() -> drips.forEach(c -> {
                try {
                    c.send("x");
                } catch (RuntimeException e) {
                    // answered and closed
                }
            }), 2, 2, TimeUnit.SECONDS);

            double success = otherTenantSuccess(5);
            System.out.printf("drip uploads: other tenant %.1f %%, shedder in flight %d%n", 100 * success,
                    edge.shedder().inFlight());

            assertThat(success).isGreaterThanOrEqualTo(0.95); // before: 0 % (every request 503 overloaded)
        } finally {
            drip.shutdownNow();
            drips.forEach(RawHttp::close);
        }
    }
}
