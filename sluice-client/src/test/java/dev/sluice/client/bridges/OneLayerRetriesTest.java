package dev.sluice.client.bridges;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.SluiceRetryPredicates;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.retry.support.RetryTemplate;

/**
 * SPEC §4.7 (one layer retries) with each retry library users already wrap calls in: a loopback
 * server that answers every request 429 {@code Retry-After: 0}, an outer retry of 4 attempts set up
 * with {@link SluiceRetryPredicates} (or Spring Retry's cause-traversing class rule), and the
 * server counts exactly the SDK's attempt cap, 3, for the one logical call — not 4 × 3 = 12. The
 * SDK waits its real jitter (under 1 s) between attempts, so the class is tagged slow.
 */
@Tag("slow")
@Timeout(60)
class OneLayerRetriesTest {

    private static final int SDK_ATTEMPT_CAP = 3; // SPEC §4.2, RetryConfig's default
    private static final int OUTER_ATTEMPTS = 4;

    private HttpServer server;
    private final AtomicInteger requests = new AtomicInteger();
    private SluiceHttpClient client;
    private HttpRequest request;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            byte[] body = "{\"type\":\"https://api.example/errors/rate_limited\",\"title\":\"Too Many Requests\",\"status\":429}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/problem+json");
            exchange.getResponseHeaders().add("Retry-After", "0");
            exchange.sendResponseHeaders(429, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        client = SluiceHttpClient.builder().random(new SplittableRandom(7)).build();
        request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/quotes"))
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.stop(0);
    }

    private String call() throws Exception {
        return client.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void resilience4jRetryWithThePredicateLeavesTheSdksRetriesAlone() {
        Retry retry = Retry.of("api", RetryConfig.custom().maxAttempts(OUTER_ATTEMPTS).waitDuration(Duration.ofMillis(1))
                .retryOnException(SluiceRetryPredicates::outerRetryAllowed).build());

        assertThatThrownBy(() -> Retry.decorateCheckedSupplier(retry, this::call).get())
                .isInstanceOf(RateLimitedException.class);
        assertThat(requests.get()).isEqualTo(SDK_ATTEMPT_CAP);
        assertThat(retry.getMetrics().getNumberOfFailedCallsWithoutRetryAttempt()).isEqualTo(1);
    }

    @Test
    void resilience4jRetryWithoutThePredicateMultipliesTheAttempts() {
        Retry retry = Retry.of("api", RetryConfig.custom().maxAttempts(OUTER_ATTEMPTS).waitDuration(Duration.ofMillis(1))
                .retryOnException(e -> true).build());

        assertThatThrownBy(() -> Retry.decorateCheckedSupplier(retry, this::call).get())
                .isInstanceOf(SluiceException.class);
        // the multiplication; the SDK's adaptive throttle may drop some outer attempts locally
        assertThat(requests.get()).isGreaterThan(SDK_ATTEMPT_CAP).isLessThanOrEqualTo(OUTER_ATTEMPTS * SDK_ATTEMPT_CAP);
    }

    @Test
    void failsafeRetryPolicyWithThePredicateLeavesTheSdksRetriesAlone() {
        RetryPolicy<Object> policy = RetryPolicy.builder().withMaxAttempts(OUTER_ATTEMPTS).withDelay(Duration.ofMillis(1))
                .handleIf(SluiceRetryPredicates::outerRetryAllowed).build();

        assertThatThrownBy(() -> Failsafe.with(policy).get(this::call))
                .isInstanceOf(FailsafeException.class).hasCauseInstanceOf(RateLimitedException.class);
        assertThat(requests.get()).isEqualTo(SDK_ATTEMPT_CAP);
    }

    @Test
    void springRetryTemplateThatNeverRetriesASluiceExceptionLeavesTheSdksRetriesAlone() {
        RetryTemplate template = RetryTemplate.builder().maxAttempts(OUTER_ATTEMPTS).fixedBackoff(1)
                .notRetryOn(SluiceException.class).traversingCauses().build();

        assertThatThrownBy(() -> template.execute(context -> call())).isInstanceOf(RateLimitedException.class);
        assertThat(requests.get()).isEqualTo(SDK_ATTEMPT_CAP);
    }
}
