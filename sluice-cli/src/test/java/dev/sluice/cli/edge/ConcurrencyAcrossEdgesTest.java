package dev.sluice.cli.edge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.cli.edge.EdgeClient.OkUpstream;
import dev.sluice.cli.edge.EdgeClient.Reply;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.limiter.PolicyState;
import dev.sluice.limiter.spi.LimiterStore;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.redis.limiter.RedisLimiterStore;
import dev.sluice.time.TimeSource;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC §1 {@code concurrent-requests} across replicas: two edges on one Redis enforce one
 * in-flight limit. A request held open on one edge takes the key's only slot, so the other edge refuses
 * the key with 429; when the held request ends, the other edge admits again.
 */
@ExtendWith(RedisTestSupport.class)
class ConcurrencyAcrossEdgesTest {

    private final String prefix = RedisTestSupport.newPrefix("conc-edges");
    private final EdgeClient client = new EdgeClient();

    @AfterEach
    void deleteKeys() {
        RedisTestSupport.deletePrefix(prefix);
    }

    @Test
    void aSlotHeldOnOneEdgeRefusesTheKeyOnTheOtherUntilTheRequestEnds() throws Exception {
        EdgeConfig config = EdgeConfig.parse("c.yaml", """
                admin: off
                store: { url: %s, replicas: 2, decision-timeout: 2s, key-prefix: "%s" }
                plans:
                  one:
                    policies:
                      - { name: burst, kind: burst, q: 100, w: 1 }
                      - { name: inflight, kind: concurrency, q: 1 }
                keys:
                  sk_one: one
                """.formatted(RedisTestSupport.URI, prefix)).withListenPort(0);
        try (OkUpstream upstream = new OkUpstream();
                LimiterStore storeA = EdgeStores.open(config.store(), TimeSource.system());
                LimiterStore storeB = EdgeStores.open(config.store(), TimeSource.system());
                EdgeServer a = EdgeServer.start(config.withUpstreamUrl(java.net.URI.create(upstream.url())),
                        EdgeOptions.defaults().withStore(storeA));
                EdgeServer b = EdgeServer.start(config.withUpstreamUrl(java.net.URI.create(upstream.url())),
                        EdgeOptions.defaults().withStore(storeB))) {
            RedisTestSupport.awaitUp(((RedisLimiterStore) storeA).endpoint());
            RedisTestSupport.awaitUp(((RedisLimiterStore) storeB).endpoint());
            RedisLimiterStore redisB = (RedisLimiterStore) storeB;

            try (Socket held = new Socket()) {
                held.connect(new InetSocketAddress("127.0.0.1", a.port()), 5_000);
                OutputStream out = held.getOutputStream();
                // 6 of 100 body bytes: admitted, and in flight until the exchange ends
                out.write(("POST /v1/labels HTTP/1.1\r\nHost: edge\r\nAuthorization: Bearer sk_one\r\n"
                        + "Content-Length: 100\r\n\r\n{\"to\":").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                awaitInFlight(redisB, config, 1);

                Reply refused = client.send(b.port(), "POST", "/v1/labels", "sk_one");
                assertThat(refused.status()).isEqualTo(429);
                assertThat(refused.rateLimit()).contains("\"inflight\";r=0");
                assertThat(refused.policy()).contains("\"inflight\";q=1;qu=\"concurrent-requests\"");
            }
            // the held request's client went away: edge A releases its slot on Redis
            awaitInFlight(redisB, config, 0);
            Reply admitted = client.send(b.port(), "POST", "/v1/labels", "sk_one");
            assertThat(admitted.status()).isEqualTo(200);
            assertThat(((RedisLimiterStore) storeA).stats().fallbackDecisions()
                    + redisB.stats().fallbackDecisions()).isZero();
        }
    }

    /** Waits (10 s at most) for the key's in-flight count on Redis to be {@code n}. */
    private static void awaitInFlight(RedisLimiterStore store, EdgeConfig config, long n) {
        await("in flight on Redis: " + n).atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> inFlight(store, config), seen -> seen == n);
    }

    private static long inFlight(RedisLimiterStore store, EdgeConfig config) {
        for (PolicyState s : store.usage("sk_one", config.plans().get("one"))) {
            if (s.policy().name().equals("inflight")) {
                return s.used();
            }
        }
        return -1;
    }
}
