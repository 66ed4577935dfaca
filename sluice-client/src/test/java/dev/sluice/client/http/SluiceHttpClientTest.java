package dev.sluice.client.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.client.AttemptOutcome;
import dev.sluice.client.CallEvent;
import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientListener;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.FallbackReason;
import dev.sluice.client.OverloadedException;
import dev.sluice.client.RateLimitedException;
import dev.sluice.client.RetryConfig;
import dev.sluice.client.RetryScope;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.ThrottleConfig;
import dev.sluice.client.TransportException;
import dev.sluice.client.http.ReplayServer.Reply;
import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import dev.sluice.time.ManualTimeSource;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The JDK transport against a loopback server, on a manual clock and scheduler (no test sleeps). */
class SluiceHttpClientTest {

    private static final long SECOND = 1_000_000_000L;
    private static final HttpClient JDK = HttpClient.newHttpClient();

    private final ManualTimeSource time = ManualTimeSource.at("2026-11-30T18:00:00Z");
    private final ManualScheduler scheduler = new ManualScheduler(time);
    private ReplayServer server;
    private DefaultSluiceHttpClient client;

    @BeforeEach
    void start() throws Exception {
        server = new ReplayServer(time);
        client = build(ClientConfig.defaults().withThrottle(ThrottleConfig.disabled()));
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.close();
    }

    private DefaultSluiceHttpClient build(ClientConfig config) {
        AtomicInteger keys = new AtomicInteger();
        return (DefaultSluiceHttpClient) SluiceHttpClient.builder().httpClient(JDK).config(config).time(time)
                .random(new SplittableRandom(42)).scheduler(scheduler).idempotencyKeys(() -> "K" + keys.incrementAndGet())
                .build();
    }

    private HttpRequest post(String path) {
        return HttpRequest.newBuilder(server.uri(path)).POST(HttpRequest.BodyPublishers.ofString("{\"shipment_id\":\"shp_4410\"}")).build();
    }

    private <T> T run(CompletableFuture<T> f) throws Exception {
        scheduler.drive(client, f);
        return f.get();
    }

    private Throwable failure(CompletableFuture<?> f) throws Exception {
        scheduler.drive(client, f);
        try {
            f.get();
            throw new AssertionError("expected the call to fail");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void sameIdempotencyKeyOnEveryAttemptOverTheWireR07b() throws Exception {
        // R07b capture: [429, 503, 200] => Idempotency-Key [K1, K1, K1], body unchanged
        server.then(Reply.of(429, "", "Retry-After", "1"), Reply.of(503, ""));
        HttpResponse<String> res = run(client.sendAsync(post("/v1/labels"), HttpResponse.BodyHandlers.ofString()));
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(server.received).extracting(r -> r.header("Idempotency-Key")).containsExactly("K1", "K1", "K1");
        assertThat(server.received.get(1).atNanos() - server.received.get(0).atNanos())
                .as("waited at least the Retry-After").isGreaterThanOrEqualTo(SECOND);
    }

    @Test
    void aGetIsSentWithoutAMintedKeyAndItsBodyIsReturned() throws Exception {
        server.then(Reply.of(200, "{\"label_id\":\"lbl_77120\"}", "Content-Type", "application/json"));
        HttpRequest get = HttpRequest.newBuilder(server.uri("/v1/labels/lbl_77120")).GET().build();
        HttpResponse<String> res = run(client.sendAsync(get, HttpResponse.BodyHandlers.ofString()));
        assertThat(res.body()).isEqualTo("{\"label_id\":\"lbl_77120\"}");
        assertThat(server.received.get(0).header("Idempotency-Key")).isNull();
    }

    @Test
    void aKeyTheCallerPutOnTheRequestIsKeptOnEveryAttempt() throws Exception {
        server.then(Reply.of(503, ""));
        HttpRequest req = HttpRequest.newBuilder(server.uri("/v1/labels")).header("Idempotency-Key", "order-17")
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        run(client.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
        assertThat(server.received).extracting(r -> r.header("Idempotency-Key")).containsExactly("order-17", "order-17");
    }

    @Test
    void aHintLongerThanTheMaximumWaitFailsAfterOneRequestR03() throws Exception {
        server.then(Reply.of(429, "", "Retry-After", "3600"));
        Throwable t = failure(client.sendAsync(post("/v1/labels"), HttpResponse.BodyHandlers.ofString()));
        assertThat(t).isInstanceOf(RateLimitedException.class);
        assertThat(((RateLimitedException) t).retryAfter()).contains(Duration.ofHours(1));
        assertThat(server.received).hasSize(1);
        assertThat(time.nanoTime()).as("no time waited").isZero();
    }

    @Test
    void cancellingTheFutureStopsThePendingRetry() throws Exception {
        server.then(Reply.of(429, "", "Retry-After", "30"));
        CompletableFuture<HttpResponse<String>> f = client.sendAsync(post("/v1/labels"), HttpResponse.BodyHandlers.ofString());
        // let the first attempt complete (bounded wait): the retry then waits on the scheduler
        await("first attempt answered").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> client.core().stats().retries() > 0 && client.busy() == 0);
        f.cancel(true);
        CompletableFuture<Void> idle = new CompletableFuture<>();
        idle.complete(null);
        scheduler.drive(client, idle);
        time.advance(Duration.ofMinutes(5));
        assertThat(client.core().poll().start()).as("nothing left to start").isEmpty();
        assertThat(server.received).hasSize(1);
        assertThat(client.core().inFlight()).isZero();
        assertThat(client.core().queued()).isZero();
    }

    @Test
    void aConnectFailureIsRetriedThenSurfacedAsATransportError() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + closedPort + "/v1/labels"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
        Throwable t = failure(client.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
        assertThat(t).isInstanceOf(TransportException.class);
        assertThat(((TransportException) t).outcomeUnknown()).isFalse();
        assertThat(((TransportException) t).attempts()).isEqualTo(3);
    }

    @Test
    void aReadTimeoutOnAPostWithoutAKeyIsNotRetriedR07a() throws Exception {
        client.close();
        ClientConfig config = ClientConfig.defaults().withThrottle(ThrottleConfig.disabled())
                .withRetry(RetryConfig.builder().mintIdempotencyKeys(false).build());
        client = build(config);
        server.then(new Reply(ReplayServer.HANG, "", List.of(), ""));
        HttpRequest req = HttpRequest.newBuilder(server.uri("/charges")).timeout(Duration.ofMillis(300))
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")).build();
        Throwable t = failure(client.sendAsync(req, HttpResponse.BodyHandlers.ofString()));
        assertThat(t).isInstanceOf(TransportException.class);
        assertThat(((TransportException) t).outcomeUnknown()).isTrue();
        assertThat(server.received).hasSize(1);
    }

    @Test
    void aCallInsideARetryingLayerMakesOneAttempt() throws Exception {
        server.then(Reply.of(503, ""), Reply.of(503, ""));
        CompletableFuture<HttpResponse<String>> f = RetryScope.call(
                () -> client.sendAsync(post("/v1/labels"), HttpResponse.BodyHandlers.ofString()));
        assertThat(failure(f)).isInstanceOf(OverloadedException.class);
        assertThat(server.received).hasSize(1);
    }

    @Test
    void aFallbackAnswersAnOverloadAndIsCountedApart() throws Exception {
        server.then(Reply.of(503, ""));
        // synchronous send on a real scheduler: no retry, so nothing waits
        try (SluiceHttpClient sync = SluiceHttpClient.builder().httpClient(JDK).build()) {
            String body = sync.sendOrElse(post("/v1/quotes"), HttpResponse.BodyHandlers.ofString(),
                    CallOptions.defaults().withoutRetries(), (reason, error) -> "cached quote (" + reason.wireName() + ")");
            assertThat(body).isEqualTo("cached quote (overloaded)");
            assertThat(sync.stats().fallbacks()).containsEntry(FallbackReason.OVERLOADED, 1L);
            assertThat(sync.stats().successes()).isZero();
        }
    }

    @Test
    void aFallbackDoesNotHideAClientBug() throws Exception {
        server.then(Reply.of(404, "{}"));
        try (SluiceHttpClient sync = SluiceHttpClient.builder().httpClient(JDK).build()) {
            assertThatThrownBy(() -> sync.sendOrElse(post("/v1/nothing"), HttpResponse.BodyHandlers.ofString(),
                    CallOptions.defaults(), (reason, error) -> "fallback"))
                    .isInstanceOf(dev.sluice.client.ClientErrorException.class);
        }
    }

    @Test
    void synchronousSendReturnsTheResponse() throws Exception {
        server.then(Reply.of(201, "{\"label_id\":\"lbl_1\"}"));
        try (SluiceHttpClient sync = SluiceHttpClient.builder().httpClient(JDK).build()) {
            HttpResponse<String> res = sync.send(post("/v1/labels"), HttpResponse.BodyHandlers.ofString());
            assertThat(res.statusCode()).isEqualTo(201);
            assertThat(res.body()).contains("lbl_1");
            assertThat(res.request().headers().firstValue("Idempotency-Key")).isPresent();
        }
    }

    @Test
    void aDeadlineShorterThanTheHintFailsAtOnce() throws Exception {
        server.then(Reply.of(429, "", "Retry-After", "5"));
        Throwable t = failure(client.sendAsync(post("/v1/labels"), HttpResponse.BodyHandlers.ofString(),
                CallOptions.defaults().withDeadline(Duration.ofSeconds(3))));
        assertThat(t).isInstanceOf(RateLimitedException.class).hasMessageContaining("deadline");
        assertThat(server.received).hasSize(1);
    }

    /** Records the thread that read every attempt's answer, and the thread of every call end. */
    private static final class Threads implements ClientListener {
        final List<String> answers = new CopyOnWriteArrayList<>();
        final List<String> ends = new CopyOnWriteArrayList<>();

        @Override
        public void onAttemptEnd(CallEvent call, int attempt, AttemptOutcome outcome, int status) {
            answers.add(Thread.currentThread().getName());
        }

        @Override
        public void onCallEnd(CallEvent call, int attempts, Duration waited, SluiceException error) {
            ends.add(Thread.currentThread().getName());
        }
    }

    private DefaultSluiceHttpClient build(ClientListener listener) {
        return (DefaultSluiceHttpClient) SluiceHttpClient.builder().httpClient(JDK)
                .config(ClientConfig.defaults().withThrottle(ThrottleConfig.disabled())).time(time)
                .random(new SplittableRandom(42)).scheduler(scheduler).listener(listener).build();
    }

    @Test
    void aBlockingSendTheCoreGrantsAtOnceIsSentAndAnsweredOnTheCallersThread() throws Exception {
        client.close();
        Threads threads = new Threads();
        client = build(threads);
        HttpResponse<String> res = client.send(post("/v1/labels"), HttpResponse.BodyHandlers.ofString());
        assertThat(res.statusCode()).isEqualTo(200);
        String me = Thread.currentThread().getName();
        assertThat(threads.answers).containsExactly(me);
        assertThat(threads.ends).containsExactly(me);
        assertThat(scheduler.delays).as("nothing was scheduled").isEmpty();
    }

    @Test
    void aBlockingSendWaitsForItsRetryOnTheSchedulerAndSendsItOnTheCallersThread() throws Exception {
        client.close();
        Threads threads = new Threads();
        client = build(threads);
        server.then(Reply.of(429, "", "Retry-After", "2"));
        CompletableFuture<HttpResponse<String>> f = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                f.complete(client.send(post("/v1/labels"), HttpResponse.BodyHandlers.ofString()));
            } catch (Throwable t) {
                f.completeExceptionally(t);
            }
        }, "blocking-caller");
        caller.start();
        HttpResponse<String> res = run(f);
        assertThat(res.statusCode()).isEqualTo(200);
        assertThat(threads.answers).as("each answer read by the caller (the core starts the retry on the scheduler)")
                .containsExactly("blocking-caller", "blocking-caller");
        assertThat(server.received.get(1).atNanos() - server.received.get(0).atNanos())
                .as("the Retry-After was waited on the scheduler").isGreaterThanOrEqualTo(2 * SECOND);
        assertThat(server.received).extracting(r -> r.header("Idempotency-Key")).containsOnly(
                server.received.get(0).header("Idempotency-Key"));
    }

    @Test
    void closingTheClientStopsABlockingSendInFlightAndLeavesNoInterrupt() throws Exception {
        server.then(new Reply(ReplayServer.HANG, "", List.of(), ""));
        CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                client.send(post("/v1/labels"), HttpResponse.BodyHandlers.ofString());
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
            interruptedAfter.complete(Thread.currentThread().isInterrupted());
        });
        caller.start();
        await("the attempt reached the server").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> !server.received.isEmpty());
        client.close();
        assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(CancellationException.class);
        assertThat(interruptedAfter.get(10, TimeUnit.SECONDS)).as("the abort's interrupt is cleared").isFalse();
        assertThat(client.core().inFlight()).isZero();
    }

    @Test
    void interruptingTheCallerOfABlockingSendInFlightCancelsTheCall() throws Exception {
        server.then(new Reply(ReplayServer.HANG, "", List.of(), ""));
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread caller = new Thread(() -> {
            try {
                client.send(post("/v1/labels"), HttpResponse.BodyHandlers.ofString());
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
        });
        caller.start();
        await("the attempt reached the server").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1))
                .until(() -> !server.received.isEmpty());
        caller.interrupt();
        assertThat(thrown.get(10, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(client.core().inFlight()).isZero();
        assertThat(client.core().queued()).isZero();
        assertThat(server.received).hasSize(1);
    }
}
