package dev.sluice.client.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.TransportException;
import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import dev.sluice.time.ManualTimeSource;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * SPEC §4.7 (one layer retries) against the JDK's own re-send: the JDK HttpClient sends a GET or
 * HEAD a second time by itself when the connection closes before any response byte (JDK 21–25,
 * {@code MultiExchange}). A real loopback server that resets every connection counts what reached
 * it; with default settings that is at most the SDK's 3 attempts, and the SDK's count is the
 * server's.
 */
class JdkResendTest {

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final ManualScheduler scheduler = new ManualScheduler(time);

    private DefaultSluiceHttpClient client(HttpClient jdk) {
        return (DefaultSluiceHttpClient) SluiceHttpClient.builder().httpClient(jdk).config(ClientConfig.defaults())
                .time(time).random(new SplittableRandom(42)).scheduler(scheduler).build();
    }

    private TransportException fail(DefaultSluiceHttpClient client, HttpRequest request) throws Exception {
        CompletableFuture<HttpResponse<String>> f = client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        scheduler.drive(client, f);
        try {
            f.get();
            throw new AssertionError("expected the call to fail");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TransportException.class);
            return (TransportException) e.getCause();
        }
    }

    @Test
    void aGetToAServerThatResetsEveryConnectionReachesItAtMostThreeTimesAndIsCountedTruly() throws Exception {
        try (ResettingServer server = new ResettingServer(); HttpClient jdk = HttpClient.newHttpClient();
                DefaultSluiceHttpClient client = client(jdk)) {
            TransportException e = fail(client, HttpRequest.newBuilder(server.uri("/v1/labels/lbl_1")).GET().build());
            int seen = server.requests.get();
            System.out.printf("GET to a resetting server: server saw %d, SDK attempts %d, transport re-sends %d%n",
                    seen, e.attempts(), client.stats().transportResends());
            assertThat(seen).as("requests that reached the server").isLessThanOrEqualTo(3);
            assertThat(e.attempts()).as("the SDK's count is the server's").isEqualTo(seen);
            assertThat(client.stats().attempts()).isEqualTo(seen);
            assertThat(client.stats().transportResends()).isPositive();
            assertThat(e.outcomeUnknown()).isTrue();
        }
    }

    @Test
    void aHeadIsCountedTheSameWay() throws Exception {
        try (ResettingServer server = new ResettingServer(); HttpClient jdk = HttpClient.newHttpClient();
                DefaultSluiceHttpClient client = client(jdk)) {
            HttpRequest head = HttpRequest.newBuilder(server.uri("/v1/labels/lbl_1"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody()).build();
            TransportException e = fail(client, head);
            assertThat(server.requests.get()).isLessThanOrEqualTo(3).isEqualTo(e.attempts());
        }
    }

    @Test
    void aKeyedPostIsNotResentByTheJdkSoTheSdkMakesItsThreeAttempts() throws Exception {
        // the JDK re-sends only GET and HEAD (unless jdk.httpclient.enableAllMethodRetry is set):
        // a POST with an Idempotency-Key is retried by the SDK alone, 3 attempts = 3 requests
        try (ResettingServer server = new ResettingServer(); HttpClient jdk = HttpClient.newHttpClient();
                DefaultSluiceHttpClient client = client(jdk)) {
            HttpRequest post = HttpRequest.newBuilder(server.uri("/v1/labels"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"shipment_id\":\"shp_4410\"}")).build();
            TransportException e = fail(client, post);
            assertThat(e.attempts()).isEqualTo(3);
            assertThat(server.requests.get()).isEqualTo(3);
            assertThat(client.stats().transportResends()).isZero();
        }
    }
}
