package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.cli.edge.EdgeClient.OkUpstream;
import dev.sluice.cli.edge.EdgeClient.Reply;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.config.StoreConfig;
import dev.sluice.redis.RedisTestSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * SPEC §3.14 and R17 over HTTP: three {@code sluice edge} processes on one Redis, a client
 * round-robining across them, against one edge deciding in memory (the single-machine reference). The
 * totals admitted and every response's {@code RateLimit} are the same: the replicas enforce one limit,
 * not three.
 *
 * <p>The edges run with a 2 s decision timeout: this test is about sharing, and a 50 ms bound could
 * send a decision to the local fallback when a JVM on this busy 2-core machine pauses (the failure
 * modes are {@link EdgeOnRedisOutageTest}'s subject).
 */
@Tag("slow")
@Timeout(120)
@ExtendWith(RedisTestSupport.class)
class ThreeEdgesOnOneRedisTest {

    private static final String PREFIX = RedisTestSupport.newPrefix("three-edges");

    @TempDir
    static Path dir;

    private static OkUpstream upstream;
    private static EdgeProcesses edges;
    private static EdgeServer single;
    private static final EdgeClient client = new EdgeClient();

    @BeforeAll
    static void startTheEdges() throws Exception {
        upstream = new OkUpstream();
        Path config = dir.resolve("edge.yaml");
        Files.writeString(config, """
                listen: { host: 127.0.0.1, port: 0, io-threads: 1 }
                admin: off
                upstream: { url: %s }
                store: { url: %s, replicas: 3, decision-timeout: 2s, key-prefix: "%s" }
                plans:
                  r17:                 # R17: 10 per minute
                    policies:
                      - { name: burst, kind: burst, q: 10, w: 60 }
                  daily:               # a daily quota of 20 behind a burst that never denies here
                    policies:
                      - { name: burst, kind: burst, q: 100, w: 1 }
                      - { name: daily, kind: quota, q: 20, window: daily }
                  five:                # the issue's concurrency case: limit 5
                    policies:
                      - { name: burst, kind: burst, q: 5, w: 3600 }
                  warm:
                    policies:
                      - { name: burst, kind: burst, q: 100000, w: 1 }
                keys:
                  sk_r17: r17
                  sk_daily: daily
                  sk_five: five
                  sk_warm: warm
                """.formatted(upstream.url(), RedisTestSupport.URI, PREFIX));
        edges = EdgeProcesses.start(3, config);
        single = EdgeServer.start(EdgeConfig.load(config).withStore(StoreConfig.MEMORY), EdgeOptions.defaults());
        for (int i = 0; i < edges.size(); i++) {
            warmUp(edges.port(i));
        }
        warmUp(single.port());
    }

    /** A few requests, until five in a row were decided by Redis (its plan, not the local share's q/3). */
    private static void warmUp(int port) throws Exception {
        int inARow = 0;
        for (int i = 0; i < 200 && inARow < 5; i++) {
            Reply r = client.send(port, "GET", "/v1/warm", "sk_warm");
            inARow = r.status() == 200 && r.quota("burst") == 100_000 ? inARow + 1 : 0;
        }
        assertThat(inARow).as("edge on :" + port + " decides on redis").isEqualTo(5);
    }

    @AfterAll
    static void stopTheEdges() {
        if (edges != null) {
            edges.close();
        }
        if (single != null) {
            single.close();
        }
        if (upstream != null) {
            upstream.close();
        }
        RedisTestSupport.deletePrefix(PREFIX);
    }

    /** {@code n} requests of {@code key}, request {@code i} sent to the edge on {@code port.applyAsInt(i)}. */
    private static List<Reply> trace(int n, String key, IntUnaryOperator port) throws Exception {
        List<Reply> replies = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            replies.add(client.send(port.applyAsInt(i), "POST", "/v1/labels", key));
        }
        return replies;
    }

    private static long admitted(List<Reply> replies) {
        return replies.stream().filter(r -> r.status() == 200).count();
    }

    @Test
    void r17ThreeReplicasLimit10PerMinute30RequestsRoundRobinedAdmitExactly10() throws Exception {
        List<Reply> one = trace(30, "sk_r17", i -> single.port());
        List<Reply> three = trace(30, "sk_r17", i -> edges.port(i % 3));

        // R17: exactly 10 allowed, as one edge allows
        assertThat(admitted(three)).isEqualTo(10).isEqualTo(admitted(one));
        assertThat(three).extracting(Reply::status).isEqualTo(one.stream().map(Reply::status).toList());
        // every response's RateLimit reflects the global remaining: 9, 8, ..., 0, then 0 on every 429
        assertThat(three).extracting(r -> r.remaining("burst"))
                .containsExactly(9L, 8L, 7L, 6L, 5L, 4L, 3L, 2L, 1L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L,
                        0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L)
                .isEqualTo(one.stream().map(r -> r.remaining("burst")).toList());
        assertThat(three).extracting(Reply::policy).containsOnly("\"burst\";q=10;w=60");
        System.out.printf("R17 trace, 30 requests: one edge in memory admitted %d, three edges on redis %d%n",
                admitted(one), admitted(three));
    }

    @Test
    void aDailyQuotaIsSpentOnceAcrossTheReplicas() throws Exception {
        List<Reply> one = trace(45, "sk_daily", i -> single.port());
        List<Reply> three = trace(45, "sk_daily", i -> edges.port(i % 3));

        assertThat(admitted(three)).isEqualTo(20).isEqualTo(admitted(one));
        assertThat(three).extracting(Reply::status).isEqualTo(one.stream().map(Reply::status).toList());
        assertThat(three).extracting(r -> r.remaining("daily"))
                .isEqualTo(one.stream().map(r -> r.remaining("daily")).toList());
        assertThat(three.get(19).remaining("daily")).isZero();
        // SPEC §3.4: past the quota, every replica says quota_exhausted with the same reset
        assertThat(three.subList(20, 45)).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(429);
            assertThat(r.body()).contains("quota_exhausted").contains("\"limit\":\"daily\"");
        });
        // ... and a Retry-After equal to the daily policy's t: the time to the window's reset (R02)
        assertThat(three.subList(20, 45)).allSatisfy(r ->
                assertThat(r.retryAfter()).isEqualTo(Long.toString(r.resetSeconds("daily"))));
        System.out.printf("daily trace, 45 requests: one edge in memory admitted %d, three edges on redis %d%n",
                admitted(one), admitted(three));
    }

    @Test
    void tenThreadsFiringAtOnceOnOneKeyWithLimit5AreAdmittedExactly5TimesAcrossTheEdges() throws Exception {
        int threads = 10;
        int perThread = 5;
        List<Reply> replies = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int port = edges.port(t % 3);
                done.add(pool.submit(() -> {
                    go.await();
                    for (int i = 0; i < perThread; i++) {
                        replies.add(client.send(port, "POST", "/v1/labels", "sk_five"));
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(replies).hasSize(threads * perThread);
        assertThat(admitted(replies)).isEqualTo(5);
        assertThat(replies).filteredOn(r -> r.status() != 200).extracting(Reply::status).containsOnly(429);
        assertThat(replies).filteredOn(r -> r.status() == 200).extracting(r -> r.remaining("burst"))
                .containsExactlyInAnyOrder(4L, 3L, 2L, 1L, 0L);
        System.out.printf("10 threads x 5 requests on one key, limit 5, over 3 edges: %d admitted%n",
                admitted(replies));
    }
}
