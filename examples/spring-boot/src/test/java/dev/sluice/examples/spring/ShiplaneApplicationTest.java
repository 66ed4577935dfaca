package dev.sluice.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.client.SluiceRestClients;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example as its README runs it, on a free port: the contract in front of the application's own
 * controller (RateLimit fields byte-exact, a 401 without a key), and the call it makes to the
 * carrier API through the auto-configured RestClient, one SDK attempt each.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.DEFINED_PORT)
class ShiplaneApplicationTest {

    static final int PORT = freePort();

    @DynamicPropertySource
    static void port(DynamicPropertyRegistry registry) {
        registry.add("server.port", () -> PORT);
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Autowired
    SluiceRestClients clients;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String path, String key) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + PORT + path));
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theControllerIsBehindTheContractAndCallsTheCarrierThroughTheSdk() throws Exception {
        HttpResponse<String> quotes = get("/v1/quotes", "sk_test_free_1");

        assertThat(quotes.statusCode()).isEqualTo(200);
        assertThat(quotes.body()).contains("\"ground_cents\":1200");
        assertThat(quotes.headers().firstValue("RateLimit-Policy"))
                .contains("\"burst\";q=5;w=10, \"daily\";q=1000;w=86400");
        assertThat(quotes.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"burst\";r=4;");
        assertThat(clients.stats("carrier").attempts()).isEqualTo(1);

        assertThat(get("/v1/quotes", null).statusCode()).isEqualTo(401);
    }
}
