package dev.sluice.redis.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.redis.RedisEndpoint;
import dev.sluice.redis.RedisTestSupport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shared bucket is fed by the provider's headers: a remaining count one process's client reads
 * lowers the bucket every process draws from (SPEC §4.6, §4.8), whichever dialect says it.
 */
@ExtendWith(RedisTestSupport.class)
class HeaderFedSharedBucketTest {

    private static final String PREFIX = RedisTestSupport.newPrefix("sdk-headers");
    /** Two dialects saying "50 per second, 2 left". */
    private static final Map<String, Map<String, String>> HEADERS = Map.of(
            "ietf", Map.of("RateLimit-Policy", "\"burst\";q=50;w=1", "RateLimit", "\"burst\";r=2;t=1"),
            "x-ratelimit", Map.of("X-RateLimit-Limit", "50, 50;window=1", "X-RateLimit-Remaining", "2",
                    "X-RateLimit-Reset", "1"));
    private static RedisEndpoint second;

    @BeforeAll
    static void secondProcess() {
        second = RedisEndpoint.connect(RedisTestSupport.URI);
        RedisTestSupport.awaitUp(second);
    }

    @AfterAll
    static void cleanUp() {
        if (second != null) {
            second.close();
        }
        RedisTestSupport.deletePrefix(PREFIX);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ietf", "x-ratelimit"})
    void aRemainingCountReadByOneProcessLowersTheBucketOfTheOther(String dialect) throws Exception {
        HttpServer provider = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        provider.createContext("/", ex -> {
            HEADERS.get(dialect).forEach((k, v) -> ex.getResponseHeaders().add(k, v));
            ex.sendResponseHeaders(200, -1);
            ex.close();
        });
        provider.start();
        String limit = "api-" + UUID.randomUUID();
        SharedLimitsConfig config = SharedLimitsConfig.builder().keyPrefix(PREFIX)
                .decisionTimeout(Duration.ofSeconds(5)).build();
        RedisTokenBucketStore a = new RedisTokenBucketStore(RedisTestSupport.endpoint(), limit, config);
        RedisTokenBucketStore b = new RedisTokenBucketStore(second, limit, config);
        b.configure(45, 50, System.nanoTime()); // process b paces by the documented limit
        try (SluiceHttpClient client = SluiceHttpClient.builder()
                .httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build())
                .pacer(PacerConfig.documented(50, 50)).tokenBucketStore(a).build()) {
            long start = System.nanoTime();
            URI uri = URI.create("http://127.0.0.1:" + provider.getAddress().getPort() + "/");
            HttpResponse<Void> res = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(res.statusCode()).isEqualTo(200);
            // the clamp is queued to the SDK's store writer (a virtual thread), so it may reach Redis after send returns
            double seen = await("the clamp reaches redis").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> b.available(System.nanoTime()), available -> available < 50.0);
            double elapsedSeconds = (System.nanoTime() - start) / 1e9;
            // 2 left, plus what refilled at 45/s since; a bucket b kept alone would hold 50
            assertThat(seen).isGreaterThanOrEqualTo(2.0).isLessThanOrEqualTo(2.0 + 45 * elapsedSeconds + 1e-6)
                    .isLessThan(50.0);
        } finally {
            provider.stop(0);
        }
    }
}
