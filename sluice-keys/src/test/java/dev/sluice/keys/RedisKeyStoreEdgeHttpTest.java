package dev.sluice.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeOptions;
import dev.sluice.edge.EdgeServer;
import dev.sluice.edge.decision.KeyIds;
import dev.sluice.edge.keys.KeyHashing;
import dev.sluice.redis.LocalRedisServers;
import dev.sluice.redis.RedisTestSupport;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The edge with its keys in Redis, over real HTTP on loopback: keys made, moved, overridden and revoked through
 * the admin API are honoured by the public port within a second, without a restart; a Redis that goes away
 * leaves known keys answering and gives the others 503 {@code key_store_unavailable} with {@code Retry-After};
 * closing the edge ends every thread the store started.
 */
@ExtendWith(RedisTestSupport.class)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisKeyStoreEdgeHttpTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String PLANS = """
            plans:
              free:
                policies:
                  - { name: burst, kind: burst, q: 100, w: 1 }
                  - { name: daily, kind: quota, q: 10, window: daily }
              pro:
                policies:
                  - { name: burst, kind: burst, q: 1000, w: 1 }
                  - { name: daily, kind: quota, q: 1000, window: daily }
            keys:
              sk_file_key_1: free
            """;

    private String prefix;
    private KeyStores keys;
    private HttpServer upstream;
    private EdgeServer edge;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws IOException {
        prefix = "sluice-test:keys:" + UUID.randomUUID();
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/", ex -> {
            byte[] body = "{\"ok\":true}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        upstream.start();
    }

    private void startEdge(String redisUrl) {
        EdgeConfig config = EdgeConfig.parse("edge.yaml", """
                listen: 127.0.0.1:0
                admin: 127.0.0.1:0
                upstream: { url: "http://127.0.0.1:%d" }
                """.formatted(upstream.getAddress().getPort()) + PLANS);
        keys = KeyStores.open(KeyStoreConfig.of(redisUrl).withKeyPrefix(prefix), KeyIds.DEFAULT,
                TimeSource.system());
        await("subscription").atMost(Duration.ofSeconds(10)).until(keys::listening);
        edge = EdgeServer.start(config, EdgeOptions.defaults().withKeySource(keys.source())
                .withKeyAdministration(keys.administration()));
    }

    @AfterEach
    void stop() {
        if (edge != null) {
            edge.close();
        }
        if (keys != null) {
            keys.close();
        }
        upstream.stop(0);
        RedisTestSupport.deletePrefix("{" + prefix + "}");
    }

    @Test
    void keysMadeAndChangedThroughTheAdminApiAreHonouredWithinOneSecond() throws Exception {
        startEdge(RedisTestSupport.URI);
        assertThat(get("sk_file_key_1").statusCode()).isEqualTo(200);

        HttpResponse<String> created = admin("POST", "keys", "{\"plan\": \"free\", \"label\": \"acme\"}");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode made = JSON.readTree(created.body());
        String key = made.get("key").asText();
        String id = made.get("key_id").asText();
        assertThat(id).isEqualTo(KeyIds.DEFAULT.id(key));

        HttpResponse<String> first = get(key);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy").orElseThrow()).contains("\"daily\";q=10");
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).contains("\"daily\";r=9");
        HttpResponse<String> shown = admin("GET", "keys/" + id, null);
        assertThat(shown.body()).doesNotContain(key).contains("\"status\":\"active\"").contains("\"label\":\"acme\"");

        // move to pro: seen within a second on the public port
        assertThat(admin("PUT", "keys/" + id + "/plan", "{\"plan\": \"pro\"}").statusCode()).isEqualTo(200);
        await("plan change").atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50)).until(() ->
                get(key).headers().firstValue("RateLimit-Policy").orElse("").contains("\"daily\";q=1000"));

        // the key's own q for one policy
        assertThat(admin("PUT", "keys/" + id + "/overrides/daily", "{\"q\": 25}").statusCode()).isEqualTo(200);
        await("override").atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50)).until(() ->
                get(key).headers().firstValue("RateLimit-Policy").orElse("").contains("\"daily\";q=25"));

        // bad input: a clear problem, nothing changed
        assertThat(admin("PUT", "keys/" + id + "/plan", "{\"plan\": \"gold\"}").statusCode()).isEqualTo(422);
        assertThat(JSON.readTree(admin("GET", "keys/" + id, null).body()).get("plan").asText()).isEqualTo("pro");

        // revoke: 401 within a second
        assertThat(admin("DELETE", "keys/" + id, null).statusCode()).isEqualTo(200);
        await("revocation").atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50))
                .until(() -> get(key).statusCode() == 401);
        assertThat(JSON.readTree(admin("GET", "keys/" + id, null).body()).get("status").asText())
                .isEqualTo("revoked");
    }

    @Test
    void aRedisThatGoesAwayLeavesKnownKeysAnsweringAndOthers503WithRetryAfter() throws Exception {
        try (LocalRedisServers servers = LocalRedisServers.create()) {
            int port = servers.startServer();
            startEdge("redis://127.0.0.1:" + port);
            // written without a PUBLISH: no refresh of it is in flight when Redis goes (a refresh that fails
            // drops the key from the cache, CachingKeySource.changed: a revocation must not outlive an outage)
            String key = "sk_outage_" + UUID.randomUUID().toString().replace("-", "");
            servers.cli(port, "HSET", "{" + prefix + "}:key:" + KeyHashing.sha256().hash(key), "key_id",
                    KeyIds.DEFAULT.id(key), "plan", "free", "created_at", "1764979200000");
            assertThat(get(key).statusCode()).isEqualTo(200);

            servers.stop(port);
            await("subscription down").atMost(Duration.ofSeconds(5)).until(() -> !keys.listening());
            assertThat(get(key).statusCode()).isEqualTo(200);
            HttpResponse<String> miss = get("sk_never_seen_" + UUID.randomUUID());
            assertThat(miss.statusCode()).isEqualTo(503);
            assertThat(miss.headers().firstValue("Retry-After")).contains("1");
            assertThat(miss.body()).contains("key_store_unavailable");
            // the admin API cannot write either, and says so
            assertThat(admin("POST", "keys", "{\"plan\": \"free\"}").statusCode()).isEqualTo(503);

            servers.restart(port);
            await("subscription back").atMost(Duration.ofSeconds(10)).until(keys::listening);
            await("misses answered again").atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                    .until(() -> get("sk_never_seen_" + UUID.randomUUID()).statusCode() == 401);
        }
    }

    @Test
    void closingTheEdgeEndsTheKeyStoresSubscriberAndRedisThreads() throws Exception {
        Set<Long> before = Thread.getAllStackTraces().keySet().stream().map(Thread::threadId)
                .collect(Collectors.toSet());
        startEdge(RedisTestSupport.URI);
        String key = JSON.readTree(admin("POST", "keys", "{\"plan\": \"free\"}").body()).get("key").asText();
        assertThat(get(key).statusCode()).isEqualTo(200);
        assertThat(names(newThreads(before))).contains("sluice-keys-notifications", "sluice-keys-lookup-1",
                "sluice-redis-timer");

        edge.close(); // closes the key source, and with it the store, its subscriber and its Redis client
        edge = null;

        await("key store, Redis and admin threads gone").atMost(Duration.ofSeconds(3))
                .untilAsserted(() -> assertThat(names(newThreads(before).stream().filter(t -> t.getName()
                        .startsWith("sluice-keys") || t.getName().startsWith("sluice-redis") || t.getName()
                        .startsWith("sluice-admin") || t.getName().startsWith("lettuce")).toList())).isEmpty());
        await("no non-daemon thread left").atMost(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(names(newThreads(before).stream().filter(t -> !t.isDaemon())
                        .filter(t -> !t.getName().startsWith("awaitility")).toList())).isEmpty());
    }

    private static List<Thread> newThreads(Set<Long> before) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(t -> !before.contains(t.threadId())).toList();
    }

    private static List<String> names(List<Thread> threads) {
        return threads.stream().map(Thread::getName).sorted().toList();
    }

    private HttpResponse<String> get(String key) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + "/v1/things"))
                .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> admin(String method, String path, String body)
            throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort() + "/admin/v1/"
                + path)).method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
