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
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The edge with its keys in PostgreSQL, over real HTTP on loopback: keys made, moved, overridden and revoked
 * through the admin API are honoured by the public port within a second, without a restart.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class KeyStoreEdgeHttpTest {

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

    private TestDatabase db;
    private KeyStores keys;
    private HttpServer upstream;
    private EdgeServer edge;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws IOException {
        db = TestDatabase.schema();
        upstream = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        upstream.createContext("/", ex -> {
            byte[] body = "{\"ok\":true}".getBytes();
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        upstream.start();
    }

    private void startEdge(String admin) {
        EdgeConfig config = EdgeConfig.parse("edge.yaml", """
                listen: 127.0.0.1:0
                admin: %s
                upstream: { url: "http://127.0.0.1:%d" }
                """.formatted(admin, upstream.getAddress().getPort()) + PLANS);
        keys = KeyStores.open(db.config(), KeyIds.DEFAULT, TimeSource.system());
        await("listener").atMost(Duration.ofSeconds(10)).until(keys::listening);
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
        db.close();
    }

    @Test
    void keysMadeAndChangedThroughTheAdminApiAreHonouredWithinOneSecond() throws Exception {
        startEdge("127.0.0.1:0");
        // the file's keys still work beside the store's
        assertThat(get("sk_file_key_1").statusCode()).isEqualTo(200);

        HttpResponse<String> created = admin("POST", "keys", "{\"plan\": \"free\", \"label\": \"acme\"}", null);
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode made = JSON.readTree(created.body());
        String key = made.get("key").asText();
        String id = made.get("key_id").asText();
        assertThat(id).isEqualTo(KeyIds.DEFAULT.id(key));
        assertThat(made.get("plan").asText()).isEqualTo("free");

        HttpResponse<String> first = get(key);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("RateLimit-Policy").orElseThrow())
                .contains("\"daily\";q=10");
        assertThat(first.headers().firstValue("RateLimit").orElseThrow()).contains("\"daily\";r=9");

        // the record never shows the key again
        HttpResponse<String> shown = admin("GET", "keys/" + id, null, null);
        assertThat(shown.statusCode()).isEqualTo(200);
        assertThat(shown.body()).doesNotContain(key).contains("\"status\":\"active\"");

        // dry run: the standing under pro, nothing changed
        HttpResponse<String> dry = admin("PUT", "keys/" + id + "/plan?dry-run=true", "{\"plan\": \"pro\"}", null);
        assertThat(dry.statusCode()).isEqualTo(200);
        JsonNode preview = JSON.readTree(dry.body());
        assertThat(preview.get("dry_run").asBoolean()).isTrue();
        assertThat(preview.get("to").asText()).isEqualTo("pro");
        JsonNode daily = preview.get("policies").get(1);
        assertThat(daily.get("policy").asText()).isEqualTo("daily");
        assertThat(daily.get("q").asLong()).isEqualTo(1000);
        // the in-memory store carries a policy's state only while the policy is unchanged: 0 under pro's daily
        assertThat(daily.get("used").asLong()).isZero();
        assertThat(daily.get("remaining").asLong()).isEqualTo(1000);
        assertThat(JSON.readTree(admin("GET", "keys/" + id, null, null).body()).get("plan").asText())
                .isEqualTo("free");

        // move to pro: the next response shows pro's policy and the standing the dry run announced
        assertThat(admin("PUT", "keys/" + id + "/plan", "{\"plan\": \"pro\"}", null).statusCode()).isEqualTo(200);
        await("plan change").atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(20)).until(() ->
                JSON.readTree(admin("GET", "keys/" + id, null, null).body()).get("plan").asText().equals("pro")
                        && keys.source().lookup(key).join() instanceof dev.sluice.edge.keys.KeyLookup.Found f
                        && f.key().plan().equals("pro"));
        HttpResponse<String> moved = get(key);
        assertThat(moved.headers().firstValue("RateLimit-Policy").orElseThrow()).contains("\"daily\";q=1000");
        assertThat(moved.headers().firstValue("RateLimit").orElseThrow()).contains("\"daily\";r=999");

        // the key's own q for one policy
        assertThat(admin("PUT", "keys/" + id + "/overrides/daily", "{\"q\": 25}", null).statusCode()).isEqualTo(200);
        await("override").atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50)).until(() ->
                get(key).headers().firstValue("RateLimit-Policy").orElse("").contains("\"daily\";q=25"));

        // usage, read without charging
        JsonNode usage = JSON.readTree(admin("GET", "keys/" + id + "/usage", null, null).body());
        long used = usage.get("policies").get(1).get("used").asLong();
        assertThat(usage.get("policies").get(1).get("q").asLong()).isEqualTo(25);
        assertThat(JSON.readTree(admin("GET", "keys/" + id + "/usage", null, null).body())
                .get("policies").get(1).get("used").asLong()).isEqualTo(used);

        // bad input: a clear problem, nothing changed
        HttpResponse<String> badPlan = admin("PUT", "keys/" + id + "/plan", "{\"plan\": \"gold\"}", null);
        assertThat(badPlan.statusCode()).isEqualTo(422);
        assertThat(badPlan.body()).contains("unknown_plan");
        assertThat(admin("PUT", "keys/" + id + "/overrides/hourly", "{\"q\": 5}", null).statusCode()).isEqualTo(422);
        assertThat(admin("POST", "keys", "{not json", null).statusCode()).isEqualTo(400);

        // revoke: 401 within a second
        assertThat(admin("DELETE", "keys/" + id, null, null).statusCode()).isEqualTo(200);
        await("revocation").atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(50))
                .until(() -> get(key).statusCode() == 401);
        assertThat(JSON.readTree(admin("GET", "keys/" + id, null, null).body()).get("status").asText())
                .isEqualTo("revoked");
    }

    @Test
    void anUnknownKeyIsA401AndIsNotLookedUpTwice() throws Exception {
        startEdge("127.0.0.1:0");
        HttpResponse<String> r = get("sk_not_a_key_at_all_123");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow()).contains("invalid_token");
        long queries = keys.source().storeQueries();
        for (int i = 0; i < 20; i++) {
            assertThat(get("sk_not_a_key_at_all_123").statusCode()).isEqualTo(401);
        }
        assertThat(keys.source().storeQueries()).isEqualTo(queries);
    }

    @Test
    void withATokenTheAdminApiRefusesRequestsWithoutItAndChangesNothing() throws Exception {
        startEdge("{ host: 127.0.0.1, port: 0, token: s3cret-admin }");
        HttpResponse<String> none = admin("POST", "keys", "{\"plan\": \"free\"}", null);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.headers().firstValue("WWW-Authenticate").orElseThrow()).startsWith("Bearer");
        assertThat(admin("POST", "keys", "{\"plan\": \"free\"}", "wrong").statusCode()).isEqualTo(401);
        assertThat(db.count("SELECT count(*) FROM " + db.prefix() + "sluice_api_keys")).isZero();
        assertThat(admin("POST", "keys", "{\"plan\": \"free\"}", "s3cret-admin").statusCode()).isEqualTo(201);
        assertThat(db.count("SELECT count(*) FROM " + db.prefix() + "sluice_api_keys")).isEqualTo(1);
        // metrics stay open, as before
        HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + edge.adminPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(metrics.statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> get(String key) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.port() + "/v1/things"))
                .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> admin(String method, String path, String body, String token)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + edge.adminPort()
                + "/admin/v1/" + path)).method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
