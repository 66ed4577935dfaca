package dev.sluice.examples.demo.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The two hand-written retry loops of the demo over real loopback HTTP, against a server that plays a
 * scripted list of answers and records the Idempotency-Key of each request; waits are recorded, not slept.
 */
class RetryLoopsTest {

    private HttpServer server;
    private HttpClient jdk;
    private final Deque<int[]> script = new ConcurrentLinkedDeque<>(); // {status, retryAfter or -1, quota?1:0}
    private final List<String> keys = new ArrayList<>();
    private final List<Duration> waits = new ArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        server.createContext("/v1/labels", this::answer);
        server.start();
        jdk = HttpClient.newHttpClient();
    }

    @AfterEach
    void stop() {
        server.stop(0);
        jdk.close();
    }

    private synchronized void answer(HttpExchange ex) throws IOException {
        keys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
        ex.getRequestBody().readAllBytes();
        int[] next = script.isEmpty() ? new int[] {201, -1, 0} : script.poll();
        if (next[1] >= 0) {
            ex.getResponseHeaders().set("Retry-After", Integer.toString(next[1]));
        }
        String body = next[2] == 1 ? WireTapTest.QUOTA_BODY : next[0] == 429 ? WireTapTest.RATE_BODY : "{}";
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(next[0], bytes.length);
        ex.getResponseBody().write(bytes);
        ex.close();
    }

    private HttpRequest buy() {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/labels"))
                .header("Idempotency-Key", "order-1").POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    }

    @Test
    void theNaiveLoopRetriesASpentQuotaAfterOneThenTwoSecondsUnderANewKeyEachTime() throws Exception {
        script.add(new int[] {429, 36_000, 1});
        script.add(new int[] {503, 1, 0});
        script.add(new int[] {429, 36_000, 1});
        NaiveRetryTransport naive = new NaiveRetryTransport(jdk, waits::add);

        CallResult result = naive.call(buy(), Operation.BUY_LABEL, new SplittableRandom(1));

        assertThat(result).isEqualTo(CallResult.of(CallResult.Kind.QUOTA_EXCEEDED, 429, 3));
        assertThat(waits).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2)); // 2^0, 2^1: no jitter
        assertThat(keys).hasSize(3).doesNotHaveDuplicates().startsWith("order-1");
    }

    @Test
    void theNaiveLoopStopsAtTheFirst2xx() throws Exception {
        script.add(new int[] {503, 1, 0});
        NaiveRetryTransport naive = new NaiveRetryTransport(jdk, waits::add);

        assertThat(naive.call(buy(), Operation.BUY_LABEL, new SplittableRandom(1)))
                .isEqualTo(CallResult.of(CallResult.Kind.SUCCEEDED, 201, 2));
        assertThat(waits).containsExactly(Duration.ofSeconds(1));
    }

    @Test
    void theCarefulLoopNeverRetriesASpentQuota() throws Exception {
        script.add(new int[] {429, 36_000, 1});
        CarefulRetryTransport careful = new CarefulRetryTransport(jdk, waits::add);

        assertThat(careful.call(buy(), Operation.BUY_LABEL, new SplittableRandom(1)))
                .isEqualTo(CallResult.of(CallResult.Kind.QUOTA_EXCEEDED, 429, 1));
        assertThat(waits).isEmpty();
        assertThat(keys).containsExactly("order-1");
    }

    @Test
    void theCarefulLoopHonoursRetryAfterPlusJitterAndKeepsTheKey() throws Exception {
        script.add(new int[] {429, 2, 0});
        script.add(new int[] {503, 1, 0});
        CarefulRetryTransport careful = new CarefulRetryTransport(jdk, waits::add);

        assertThat(careful.call(buy(), Operation.BUY_LABEL, new SplittableRandom(1)))
                .isEqualTo(CallResult.of(CallResult.Kind.SUCCEEDED, 201, 3));
        // SPEC 4.3: ra + U(0, min(20, max(1, ra)))
        assertThat(waits.get(0)).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(4));
        assertThat(waits.get(1)).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));
        assertThat(keys).containsExactly("order-1", "order-1", "order-1");
    }
}
