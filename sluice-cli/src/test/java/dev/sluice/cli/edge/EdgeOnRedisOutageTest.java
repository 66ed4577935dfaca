package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.edge.EdgeClient.OkUpstream;
import dev.sluice.cli.edge.EdgeClient.Reply;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.TcpProxy;
import dev.sluice.redis.limiter.RedisLimiterStats;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.TimeSource;
import io.lettuce.core.api.StatefulRedisConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §3.14 over HTTP: an edge on Redis keeps answering when Redis stops or pauses, by the configured
 * fallback, and returns to Redis by itself. Redis is "stopped" by closing a TCP proxy in front of the
 * shared server (never the server itself), and paused with {@code CLIENT PAUSE}.
 *
 * <p>The plan allows 3,000 a minute, so with 3 replicas the local share is 1,000 and nothing is denied:
 * every answer says who decided. On Redis, {@code RateLimit-Policy} shows {@code q=3000}; the local
 * share shows {@code q=1000} (R17: the enforced share is stated, never silently the full {@code q}).
 * {@code POST /v1/payments} is fail-closed: 503 {@code overloaded} while Redis does not answer.
 * "Within the timeout" is checked as "no request takes 2 s" (40 × the 50 ms timeout): a hang check, not
 * a speed assertion; the timeline printed gives the times measured.
 */
@Tag("slow")
@Timeout(120)
@ExtendWith(RedisTestSupport.class)
class EdgeOnRedisOutageTest {

    private static final long ON_REDIS = 3_000;
    private static final long LOCAL_SHARE = 1_000; // ceil(3000 / 3)

    private final String prefix = RedisTestSupport.newPrefix("edge-outage");
    private final EdgeClient client = new EdgeClient();
    private final List<String> timeline = new ArrayList<>();
    private OkUpstream upstream;
    private TcpProxy proxy;
    private LimiterStore store;
    private EdgeServer edge;
    private long t0;

    @BeforeEach
    void startAnEdgeOnRedisBehindAProxy(@TempDir Path dir) throws Exception {
        upstream = new OkUpstream();
        proxy = new TcpProxy(RedisTestSupport.PORT);
        Path file = dir.resolve("edge.yaml");
        Files.writeString(file, """
                listen: { host: 127.0.0.1, port: 0, io-threads: 1 }
                admin: off
                upstream: { url: %s }
                store:
                  url: %s
                  replicas: 3
                  decision-timeout: 50ms
                  key-prefix: "%s"
                plans:
                  roomy:
                    policies:
                      - { name: burst, kind: burst, q: 3000, w: 60 }
                keys:
                  sk_1: roomy
                routes:
                  - { method: POST, path: /v1/payments, failure-mode: fail-closed }
                  - { method: POST, path: /v1/labels }
                """.formatted(upstream.url(), proxy.uri(), prefix));
        EdgeConfig config = EdgeConfig.load(file);
        store = EdgeStores.open(config.store(), TimeSource.system());
        edge = EdgeServer.start(config, EdgeOptions.defaults().withStore(store));
    }

    @AfterEach
    void stop() throws Exception {
        if (edge != null) {
            edge.close();
        }
        if (store != null) {
            store.close();
        }
        if (proxy != null) {
            proxy.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        RedisTestSupport.deletePrefix(prefix);
    }

    private RedisLimiterStore redis() {
        return (RedisLimiterStore) store;
    }

    // what the client saw since t0
    private int openLocal;
    private int closed503;
    private long slowestMillis;
    private boolean sawLocal;
    private boolean saw503;
    private boolean sawDown;

    private long ms() {
        return (System.nanoTime() - t0) / 1_000_000;
    }

    private Reply labels() throws Exception {
        return client.send(edge.port(), "POST", "/v1/labels", "sk_1");
    }

    private Reply payment() throws Exception {
        return client.send(edge.port(), "POST", "/v1/payments", "sk_1");
    }

    /** Requests until five pairs in a row were decided by Redis (a cold JVM may miss 50 ms at first). */
    private void warmUp() throws Exception {
        int inARow = 0;
        for (int i = 0; i < 300 && inARow < 5; i++) {
            Reply a = labels();
            Reply b = payment();
            inARow = a.quota("burst") == ON_REDIS && b.status() == 200 && b.quota("burst") == ON_REDIS ? inARow + 1 : 0;
            if (inARow == 0) {
                awaitRedisUpTo(Duration.ofMillis(20));
            }
        }
        assertThat(inARow).as("five pairs in a row decided by redis").isEqualTo(5);
        // a problem body (401) once, so the first 503 of the outage does not pay for loading that code
        assertThat(client.send(edge.port(), "POST", "/v1/payments", "sk_unknown").status()).isEqualTo(401);
    }

    /**
     * Sends one request on the fail-open route and one on the fail-closed route, checking each answer
     * against who decided it: Redis ({@code q=3000}, 200 on both routes) or not (the local share
     * {@code q=1000} on the open route, 503 {@code overloaded} with {@code Retry-After: 1} on the closed
     * one), and counts those decided without Redis.
     *
     * @return whether Redis decided both
     */
    private boolean pair() throws Exception {
        Reply a = labels();
        Reply b = payment();
        slowestMillis = Math.max(slowestMillis, Math.max(a.nanos(), b.nanos()) / 1_000_000);
        for (Reply r : List.of(a, b)) {
            if (r.nanos() > 100_000_000L) { // twice the timeout: worth a line in the timeline
                timeline.add(ms() + " ms: a slow request: " + r.nanos() / 1_000_000 + " ms (" + r.status() + ", "
                        + (r == a ? "fail-open" : "fail-closed") + " route)");
            }
        }
        boolean onRedis = true;
        assertThat(a.status()).isEqualTo(200);
        if (a.quota("burst") == LOCAL_SHARE) {
            openLocal++;
            onRedis = false;
            if (!sawLocal) {
                sawLocal = true;
                timeline.add(ms() + " ms: first answer without redis (open route: 200, RateLimit-Policy "
                        + a.policy() + "; took " + a.nanos() / 1_000_000 + " ms)");
            }
        } else {
            assertThat(a.quota("burst")).isEqualTo(ON_REDIS);
        }
        if (b.status() == 503) {
            closed503++;
            onRedis = false;
            if (!saw503) {
                saw503 = true;
                timeline.add(ms() + " ms: first 503 on the fail-closed route (Retry-After: " + b.retryAfter()
                        + "; took " + b.nanos() / 1_000_000 + " ms)");
            }
            assertThat(b.retryAfter()).isEqualTo("1");
            assertThat(b.body()).contains("/errors/overloaded").contains("\"retry_after_s\":1");
        } else {
            assertThat(b.status()).isEqualTo(200);
            assertThat(b.quota("burst")).isEqualTo(ON_REDIS); // a fail-closed route never uses the share
        }
        if (!sawDown && !redis().endpoint().isUp()) {
            sawDown = true;
            timeline.add(ms() + " ms: redis marked down after " + redis().stats().timeouts() + " timeouts / "
                    + redis().stats().errors() + " errors in all; from here answered at once");
        }
        return onRedis;
    }

    /** Pairs until {@code over} holds. */
    private void run(String what, BooleanSupplier over) throws Exception {
        for (int i = 0; !over.getAsBoolean(); i++) {
            assertThat(i).as(what + ": request pairs until the phase ends").isLessThan(100_000);
            pair();
        }
    }

    /** Pairs until Redis decides both routes again; returns how many that took. */
    private int untilBackOnRedis(String what) throws Exception {
        for (int i = 1; ; i++) {
            assertThat(i).as(what + ": request pairs until back on redis").isLessThan(10_000);
            if (pair()) {
                timeline.add(ms() + " ms: both routes answered by redis again");
                return i;
            }
            awaitRedisUpTo(Duration.ofMillis(20)); // bounded: do not spin while it is still down
        }
    }

    private void awaitRedisUpTo(Duration bound) throws Exception {
        try {
            redis().endpoint().whenUp().toCompletableFuture().get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException stillDown) {
            // keep sending: the fallback answers
        }
    }

    @Test
    void aStoppedRedisIsAnsweredByTheFallbackOfEachRouteAndTheEdgeReturnsToRedisWithoutARestart() throws Exception {
        warmUp();
        EdgeServer running = edge;
        RedisLimiterStats before = redis().stats();
        t0 = System.nanoTime();

        proxy.stop();
        timeline.add(ms() + " ms: redis stopped (the proxy closed its connections and stopped listening)");
        // the outage lasts at least 500 ms and 50 pairs answered without redis
        run("stopped", () -> !redis().endpoint().isUp() && openLocal >= 50 && ms() >= 500);
        proxy.start();
        timeline.add(ms() + " ms: redis reachable again (the proxy listens); " + openLocal + " + " + closed503
                + " requests decided without redis so far");
        run("restarted", () -> redis().endpoint().isUp());
        timeline.add(ms() + " ms: a probe answered, redis marked up");
        int pairs = untilBackOnRedis("restarted");

        RedisLimiterStats after = redis().stats();
        assertThat(edge).isSameAs(running); // no restart of Sluice
        assertThat(openLocal).isGreaterThanOrEqualTo(50);
        assertThat(closed503).isGreaterThanOrEqualTo(50);
        // the store counted exactly what the client saw
        assertThat(after.fallbackDecisions() - before.fallbackDecisions()).isEqualTo(openLocal);
        assertThat(after.unavailableDecisions() - before.unavailableDecisions()).isEqualTo(closed503);
        assertThat(slowestMillis).as("no request hangs").isLessThan(2_000);
        System.out.println("edge on a stopped redis, timeline:\n  " + String.join("\n  ", timeline)
                + "\n  decided without redis: " + openLocal + " on the fail-open route (200, q=" + LOCAL_SHARE
                + "), " + closed503 + " on the fail-closed route (503); slowest request " + slowestMillis + " ms; "
                + pairs + " pair(s) from the probe to both routes on redis; " + after + "; "
                + redis().endpoint().stats());
    }

    @Test
    void aPausedRedisIsAnsweredWithinTheTimeoutAndTheEdgeReturnsToRedisByItself() throws Exception {
        warmUp();
        RedisLimiterStats before = redis().stats();
        long downBefore = redis().endpoint().stats().downTransitions();
        t0 = System.nanoTime();
        try (StatefulRedisConnection<String, String> second = RedisTestSupport.newConnection()) {
            second.sync().clientPause(1_000); // CLIENT PAUSE 1000 (mode ALL): every client's commands wait
            timeline.add(ms() + " ms: CLIENT PAUSE 1000 ALL");
            run("paused", () -> redis().endpoint().stats().downTransitions() > downBefore
                    && redis().endpoint().isUp());
            timeline.add(ms() + " ms: a probe answered, redis marked up");
        }
        int pairs = untilBackOnRedis("paused");

        RedisLimiterStats after = redis().stats();
        assertThat(openLocal).isPositive();
        assertThat(closed503).isPositive();
        assertThat(after.fallbackDecisions() - before.fallbackDecisions()).isEqualTo(openLocal);
        assertThat(after.unavailableDecisions() - before.unavailableDecisions()).isEqualTo(closed503);
        assertThat(after.timeouts() - before.timeouts()).isBetween(3L, 10L); // the threshold, then nothing sent
        assertThat(slowestMillis).as("no request hangs").isLessThan(2_000);
        System.out.println("edge on a paused redis, timeline:\n  " + String.join("\n  ", timeline)
                + "\n  decided without redis: " + openLocal + " on the fail-open route, " + closed503
                + " on the fail-closed route (503); slowest request " + slowestMillis + " ms; " + pairs
                + " pair(s) from the probe to both routes on redis; " + after);
    }
}
