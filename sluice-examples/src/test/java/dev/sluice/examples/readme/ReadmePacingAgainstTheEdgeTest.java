package dev.sluice.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientListener;
import dev.sluice.client.PacerConfig;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.edge.EdgeConfig;
import dev.sluice.edge.EdgeServer;
import dev.sluice.examples.shiplane.ShiplaneConfig;
import dev.sluice.examples.shiplane.ShiplaneServer;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client README's example on real loopback: {@code PacerConfig.documented(10, 20)} against the
 * real edge with {@code examples/shiplane.yaml}'s Free plan (burst 20 per 2 s = 10/s), proxying to
 * Shiplane. SPEC §4.6: paced a little under the documented number, the run sees no 429. Three
 * Free keys run at once, each with its own client and 60 calls started together (every call of
 * the first burst opens a new connection).
 */
@Tag("slow")
@Timeout(120)
class ReadmePacingAgainstTheEdgeTest {

    private static final int CALLS = 60;
    private static final String[] KEYS = {"sk_test_free_1", "sk_test_free_2", "sk_test_free_3"};

    @Test
    void theReadmeExamplesPacingMeetsNo429FromTheFreePlan() throws Exception {
        Path repo = Path.of(System.getProperty("sluice.testdata")).getParent();
        try (ShiplaneServer shiplane = ShiplaneServer.start(ShiplaneConfig.defaults().withPort(0))) {
            EdgeConfig base = EdgeConfig.load(repo.resolve("examples/shiplane.yaml"));
            EdgeConfig config = base.withListen(base.listen().withHost("127.0.0.1").withPort(0))
                    .withAdmin(Optional.empty()).withUpstreamUrl(shiplane.baseUri());
            try (EdgeServer edge = EdgeServer.start(config)) {
                URI labels = URI.create("http://127.0.0.1:" + edge.port() + "/v1/labels");
                long start = System.nanoTime();
                ConcurrentLinkedQueue<Long> retriesAtMillis = new ConcurrentLinkedQueue<>();
                ClientListener listener = new ClientListener() {
                    @Override
                    public void onRetryScheduled(String host, int nextAttempt, Duration wait) {
                        retriesAtMillis.add((System.nanoTime() - start) / 1_000_000);
                    }
                };
                List<SluiceHttpClient> clients = new ArrayList<>();
                List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
                try {
                    for (String key : KEYS) {
                        // --- README (client per key, as the example builds it) ---
                        SluiceHttpClient client = SluiceHttpClient.builder()
                                .pacer(PacerConfig.documented(10, 20))
                                .listener(listener)
                                .build();
                        clients.add(client);
                        for (int i = 0; i < CALLS; i++) {
                            HttpRequest req = HttpRequest.newBuilder(labels)
                                    .header("Authorization", "Bearer " + key)
                                    .POST(HttpRequest.BodyPublishers.ofString("{\"shipment_id\":\"shp_4410\"}")).build();
                            calls.add(client.sendAsync(req, HttpResponse.BodyHandlers.ofString(),
                                    CallOptions.defaults().withDeadline(Duration.ofSeconds(30))));
                        }
                    }
                    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                    double seconds = (System.nanoTime() - start) / 1e9;
                    long attempts = clients.stream().mapToLong(c -> c.stats().attempts()).sum();
                    long accepts = clients.stream().mapToLong(c -> c.stats().accepts()).sum();
                    System.out.printf("README pacing against the edge: %d calls on %d Free keys in %.2f s, "
                            + "%d attempts, %d refused, retries at %s ms%n", calls.size(), KEYS.length, seconds,
                            attempts, attempts - accepts, retriesAtMillis);
                    for (CompletableFuture<HttpResponse<String>> f : calls) {
                        assertThat(f.get().statusCode()).isEqualTo(201);
                    }
                    assertThat(attempts - accepts).as("429s the edge answered").isZero();
                    assertThat(attempts).as("one attempt per call: nothing to retry").isEqualTo(calls.size());
                } finally {
                    for (SluiceHttpClient c : clients) {
                        c.close();
                    }
                }
            }
        }
    }
}
