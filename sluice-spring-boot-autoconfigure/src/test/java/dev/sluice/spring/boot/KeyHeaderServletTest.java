package dev.sluice.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.spring.boot.app.TestShiplane;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

/** {@code sluice.key-header: X-API-Key}: the key comes from that header, and only from it. */
@SpringBootTest(classes = TestShiplane.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "sluice.key-header=X-API-Key")
@DirtiesContext
class KeyHeaderServletTest {

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> quotes(String header, String value) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/quotes"))
                .header(header, value).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theKeyIsReadFromTheConfiguredHeader() throws Exception {
        HttpResponse<String> ok = quotes("X-API-Key", "sk_free");
        assertThat(ok.statusCode()).isEqualTo(200);
        assertThat(ok.headers().allValues("RateLimit-Policy"))
                .containsExactly("\"burst\";q=3;w=60, \"daily\";q=100;w=86400");
        assertThat(ok.headers().allValues("RateLimit")).hasSize(1).first().asString().startsWith("\"burst\";r=2;");

        HttpResponse<String> unknown = quotes("X-API-Key", "sk_nobody");
        assertThat(unknown.statusCode()).isEqualTo(401);
        assertThat(unknown.headers().firstValue("Content-Type")).contains("application/problem+json");
    }

    @Test
    void aBearerTokenIsNotAKeyWhenAnotherHeaderIsConfigured() throws Exception {
        HttpResponse<String> r = quotes("Authorization", "Bearer sk_free_2");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(r.headers().allValues("RateLimit")).isEmpty();
    }
}
