package dev.sluice.examples.adapters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientListener;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.QuotaExceededException;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.time.TimeSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scenarios every client adapter passes against the real edge over loopback (the SDK's own
 * HTTP tests' scenarios, SPEC §4.2, §4.4, §4.6): a 429 waited out and re-sent, then paced; a spent
 * quota as a typed error without a retry; a 503 retried (within the attempt cap of 3); one
 * Idempotency-Key on every attempt. What the server saw is read from the edge
 * ({@link ShiplaneBehindEdge#seenWith}), not from the adapter. Each test waits out real
 * {@code Retry-After: 1} hints, so the class is tagged slow.
 */
@Tag("slow")
@Timeout(60)
public abstract class AdapterContractTest {

    /** One adapter over a fresh SDK core. */
    public interface AdapterClient extends AutoCloseable {

        /**
         * Sends one logical call through the adapter.
         *
         * @param body a JSON body, or {@code null} for none
         * @return the status and body the adapter handed back
         * @throws Exception the SDK's typed {@code SluiceException} itself, unwrapped from whatever
         *     the transport's API wraps it in
         */
        Reply send(String method, URI uri, String apiKey, String body) throws Exception;

        @Override
        void close() throws java.io.IOException;
    }

    /** What the adapter handed back. */
    public record Reply(int status, String body) {
    }

    protected ShiplaneBehindEdge edge;

    /** The adapter under test, driving a core with {@code config} and {@code environment}. */
    protected abstract AdapterClient client(ClientConfig config, CoreEnvironment environment) throws Exception;

    @BeforeEach
    void startEdge() throws Exception {
        edge = ShiplaneBehindEdge.start();
    }

    @AfterEach
    void stopEdge() {
        edge.close();
    }

    private static CoreEnvironment environment(ClientListener listener) {
        return CoreEnvironment.of(TimeSource.system(), new SplittableRandom(17)).withListener(listener);
    }

    /** Spends a key's token (or quota) with one plain JDK request, around every Sluice layer. */
    private void spend(String apiKey) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(edge.uri("/v1/quotes"))
                .header("Authorization", "Bearer " + apiKey).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
    }

    @Test
    void a429IsWaitedOutAndResentThenTheNextCallIsPaced() throws Exception {
        spend("sk_tight");
        try (AdapterClient client = client(ClientConfig.defaults(), environment(ClientListener.none()))) {
            long start = System.nanoTime();
            Reply reply = client.send("GET", edge.uri("/v1/quotes"), "sk_tight", null);
            Duration took = Duration.ofNanos(System.nanoTime() - start);

            assertThat(reply.status()).isEqualTo(200);
            assertThat(reply.body()).contains("\"quotes\"");
            assertThat(edge.seenWith("sk_tight")).as("the spend, the 429, the re-send").hasSize(3);
            assertThat(took).as("Retry-After: 1 honoured in full (R03)").isGreaterThanOrEqualTo(Duration.ofSeconds(1));

            // the answer said "burst";q=1;w=1: the pacer holds the next call instead of meeting a 429
            Reply next = client.send("GET", edge.uri("/v1/quotes"), "sk_tight", null);
            assertThat(next.status()).isEqualTo(200);
            assertThat(edge.seenWith("sk_tight")).as("one more request, no 429").hasSize(4);
        }
    }

    @Test
    void aSpentQuotaIsATypedErrorWithoutARetry() throws Exception {
        spend("sk_spent");
        try (AdapterClient client = client(ClientConfig.defaults(), environment(ClientListener.none()))) {
            QuotaExceededException e = catchThrowableOfType(QuotaExceededException.class,
                    () -> client.send("GET", edge.uri("/v1/quotes"), "sk_spent", null));
            assertThat(e).isNotNull();
            assertThat(e.status()).isEqualTo(429);
            assertThat(e.attempts()).isEqualTo(1);
            assertThat(edge.seenWith("sk_spent")).as("the spend and one refused request, never a retry").hasSize(2);

            // the pacer now knows the quota is spent: the next call is refused without a request
            QuotaExceededException again = catchThrowableOfType(QuotaExceededException.class,
                    () -> client.send("GET", edge.uri("/v1/quotes"), "sk_spent", null));
            assertThat(again).isNotNull();
            assertThat(again.attempts()).isZero();
            assertThat(edge.seenWith("sk_spent")).hasSize(2);
        }
    }

    @Test
    void a503IsRetriedAndTheWriteBuysOneLabel() throws Exception {
        edge.shiplane().blip(true);
        ClientListener blipEnds = new ClientListener() {
            @Override
            public void onRetryScheduled(String host, int nextAttempt, Duration wait) {
                edge.shiplane().blip(false);
            }
        };
        try (AdapterClient client = client(ClientConfig.defaults(), environment(blipEnds))) {
            Reply reply = client.send("POST", edge.uri("/v1/labels"), "sk_roomy", "{\"shipment_id\":\"shp_1\"}");

            assertThat(reply.status()).isEqualTo(201);
            List<ShiplaneBehindEdge.Seen> seen = edge.seenWith("sk_roomy");
            assertThat(seen).as("the 503 and the retry").hasSize(2);
            String key = seen.get(0).idempotencyKey();
            assertThat(key).as("minted for a POST (SPEC §4.4)").isNotBlank();
            assertThat(seen).extracting(ShiplaneBehindEdge.Seen::idempotencyKey).containsOnly(key);
            assertThat(edge.shiplane().labelsBoughtWith(key)).isEqualTo(1);
        }
    }

    @Test
    void aLasting503EndsAtTheAttemptCapWithOneIdempotencyKey() throws Exception {
        edge.shiplane().blip(true);
        try (AdapterClient client = client(ClientConfig.defaults(), environment(ClientListener.none()))) {
            OverloadedException e = catchThrowableOfType(OverloadedException.class,
                    () -> client.send("POST", edge.uri("/v1/labels"), "sk_roomy", "{\"shipment_id\":\"shp_2\"}"));

            assertThat(e).isNotNull();
            assertThat(e.attempts()).as("SPEC §4.2: at most 3 attempts per call").isEqualTo(3);
            List<ShiplaneBehindEdge.Seen> seen = edge.seenWith("sk_roomy");
            assertThat(seen).hasSize(3);
            assertThat(seen.get(0).idempotencyKey()).isNotBlank();
            assertThat(seen).extracting(ShiplaneBehindEdge.Seen::idempotencyKey).containsOnly(seen.get(0).idempotencyKey());
        }
    }

    @Test
    void anAnswerOutsideTheContractIsHandedBackAsTheResponse() throws Exception {
        try (AdapterClient client = client(ClientConfig.defaults(), environment(ClientListener.none()))) {
            Reply reply = client.send("GET", edge.uri("/v1/labels/none"), "sk_roomy", null);

            assertThat(reply.status()).as("not a rate-limit answer: the caller's own status handling").isEqualTo(404);
        }
    }
}
