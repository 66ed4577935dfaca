package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.app.TestShiplane;
import dev.sluice.spring.boot.reactive.ReactiveKeyResolver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A {@link ReactiveKeyResolver} bean in a WebFlux application takes the key from where the
 * application keeps it (here the {@code api_key} query parameter), ahead of {@code sluice.key-header}.
 */
@SpringBootTest(classes = {TestShiplane.class, ReactiveKeyResolverTest.FromQuery.class},
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.main.web-application-type=reactive", "sluice.key-header=X-API-Key"})
@DirtiesContext
class ReactiveKeyResolverTest {

    @TestConfiguration
    static class FromQuery {
        @Bean
        ReactiveKeyResolver apiKeyFromQuery() {
            return request -> request.getQueryParams().getFirst("api_key");
        }
    }

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(String pathAndQuery, String apiKeyHeader) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery));
        if (apiKeyHeader != null) {
            b.header("X-API-Key", apiKeyHeader);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theResolversKeyIsLimitedByItsPlan() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertThat(get("/v1/quotes?api_key=sk_free", null).statusCode()).isEqualTo(200);
        }
        HttpResponse<String> limited = get("/v1/quotes?api_key=sk_free", null);
        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().allValues("Cache-Control")).containsExactly("no-store");
        assertThat(limited.body()).contains("\"type\":\"https://docs.shiplane.example/errors/rate_limited\"");
    }

    @Test
    void withoutTheResolversKeyTheCallerIsUnauthenticatedWhateverElseItSends() throws Exception {
        HttpResponse<String> r = get("/v1/quotes", "sk_free_2");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().firstValue("Content-Type")).contains("application/problem+json");
    }
}
