package dev.sluice.client;

import dev.sluice.client.core.ClientStats;
import dev.sluice.client.internal.http.DefaultSluiceHttpClient;
import dev.sluice.client.spi.ResponseReader;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP client over {@link java.net.http.HttpClient} that keeps the client half of the rate-limit
 * contract (SPEC §4, §5): it paces itself below the limit, retries only what is worth retrying
 * (with jitter, within a budget, with one Idempotency-Key per call), throttles itself when the
 * server keeps refusing, and surfaces typed errors instead of loops.
 *
 * <p>One client serves one API (one provider limit): its pacer, budget, throttle and queue are
 * shared by every call made through it. Create it once and reuse it; it is thread-safe.
 *
 * <pre>{@code
 * try (SluiceHttpClient client = SluiceHttpClient.builder()
 *         .pacer(PacerConfig.documented(10, 20))          // 10 req/s, burst 20, paced at 90 % of both
 *         .build()) {
 *     HttpRequest req = HttpRequest.newBuilder(URI.create("https://api.example.com/v1/labels"))
 *             .POST(HttpRequest.BodyPublishers.ofString("{...}")).build();
 *     HttpResponse<String> res = client.send(req, HttpResponse.BodyHandlers.ofString(),
 *             CallOptions.defaults().withDeadline(Duration.ofSeconds(10)));
 * } catch (QuotaExceededException e) {
 *     // e.policy(), e.resetAt(): tell the user; do not retry
 * }
 * }</pre>
 *
 * <p>Results: a 1xx–3xx response is returned; everything else ends in a {@link SluiceException}
 * subclass (quota, rate limit, overload, budget, shed, deadline, conflict, client or server
 * error, transport), which is an {@link IOException}. Waits never block a thread: retries and
 * pacing are scheduled. Cancelling the future of {@link #sendAsync} cancels pending retries and
 * the attempt in flight.
 */
public interface SluiceHttpClient extends AutoCloseable {

    /** A builder with the defaults of its settings table. */
    static Builder builder() {
        return new Builder();
    }

    /** {@link #send(HttpRequest, HttpResponse.BodyHandler, CallOptions)} with default options. */
    default <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws IOException, InterruptedException {
        return send(request, handler, CallOptions.defaults());
    }

    /**
     * Sends {@code request} and waits for its result, retries included.
     *
     * @return the response (status 1xx–3xx)
     * @throws SluiceException the typed reason the call has no usable response
     * @throws IOException any other I/O failure of the transport
     * @throws InterruptedException if the waiting thread is interrupted; the call is cancelled
     */
    <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, CallOptions options)
            throws IOException, InterruptedException;

    /** {@link #sendAsync(HttpRequest, HttpResponse.BodyHandler, CallOptions)} with default options. */
    default <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return sendAsync(request, handler, CallOptions.defaults());
    }

    /**
     * Sends {@code request} asynchronously, with the same semantics as {@code send}. The future
     * completes exceptionally with a {@link SluiceException} (or another exception of the
     * transport). Cancelling it stops pending retries and aborts the attempt in flight.
     */
    <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            CallOptions options);

    /**
     * Sends {@code request} and returns its body, or — when the call was shed, dropped locally,
     * over quota or overloaded — the {@code fallback}'s answer (degrade rather than fail). Other
     * failures propagate. A fallback answer is counted apart ({@link ClientListener#onFallback}).
     *
     * @throws IOException the call's error when the fallback does not apply or itself fails
     */
    <T> T sendOrElse(HttpRequest request, HttpResponse.BodyHandler<T> handler, CallOptions options,
            Fallback<T> fallback) throws IOException, InterruptedException;

    /**
     * Seeds the pacer from the API's usage endpoint before the first call (SPEC §3.6, §4.6): sends
     * {@code usageRequest} (a {@code GET /v1/usage} with the caller's credential) once, directly —
     * no pacing, no retry, nothing counted — and reads its {@code limits} array ({@code name},
     * {@code q}, {@code w}, {@code r}, {@code reset_at}).
     *
     * @return completes when the pacer follows the reported limits; completes exceptionally with an
     *     {@link IOException} when the endpoint fails or answers something else than 2xx JSON
     */
    CompletableFuture<Void> seedFromUsage(HttpRequest usageRequest);

    /** Counters since the client was built (SPEC §4.9, §5.5). */
    ClientStats stats();

    /** Cancels pending calls and stops the default scheduler. The JDK client is left to its owner. */
    @Override
    void close();

    /**
     * Builds a {@link SluiceHttpClient}. Not thread-safe.
     *
     * <table>
     *   <caption>Settings and defaults</caption>
     *   <tr><th>setting</th><th>default</th></tr>
     *   <tr><td>{@code httpClient}</td><td>{@code HttpClient.newBuilder().connectTimeout(10 s)}, redirects never</td></tr>
     *   <tr><td>{@code config}</td><td>{@link ClientConfig#defaults()}: 3 attempts, backoff 0.5 s–20 s,
     *       max wait 60 s, retry budget 10 % of calls or at least 10 retries per minute, throttle K = 2 over
     *       2 min, pacing from headers at 90 % (rate and burst),
     *       queue 100, 64 in flight</td></tr>
     *   <tr><td>{@code defaultDeadline}</td><td>none</td></tr>
     *   <tr><td>{@code attemptTimeout}</td><td>none (a request's own {@code timeout()} is kept)</td></tr>
     *   <tr><td>{@code time}</td><td>{@link TimeSource#system()}</td></tr>
     *   <tr><td>{@code random}</td><td>a new {@link SplittableRandom}</td></tr>
     *   <tr><td>{@code idempotencyKeys}</td><td>random UUIDs</td></tr>
     *   <tr><td>{@code listener}</td><td>none</td></tr>
     *   <tr><td>{@code scheduler}</td><td>one daemon thread, {@code sluice-scheduler}</td></tr>
     *   <tr><td>{@code responseReader}</td><td>the wire module's standard dialect registry</td></tr>
     *   <tr><td>{@code tokenBucketStore}, {@code retryBudgetStore}</td><td>in memory (one process)</td></tr>
     * </table>
     */
    final class Builder {
        private @Nullable HttpClient httpClient;
        private ClientConfig config = ClientConfig.defaults();
        private @Nullable Duration defaultDeadline;
        private @Nullable Duration attemptTimeout;
        private TimeSource time = TimeSource.system();
        private @Nullable RandomGenerator random;
        private Supplier<String> idempotencyKeys = () -> UUID.randomUUID().toString();
        private ClientListener listener = ClientListener.none();
        private @Nullable Scheduler scheduler;
        private @Nullable ResponseReader responseReader;
        private @Nullable TokenBucketStore tokenBucketStore;
        private @Nullable RetryBudgetStore retryBudgetStore;

        private Builder() {
        }

        public Builder httpClient(HttpClient v) { this.httpClient = Objects.requireNonNull(v); return this; }
        public Builder config(ClientConfig v) { this.config = Objects.requireNonNull(v); return this; }
        public Builder retry(RetryConfig v) { this.config = config.withRetry(v); return this; }
        public Builder budget(RetryBudgetConfig v) { this.config = config.withBudget(v); return this; }
        public Builder throttle(ThrottleConfig v) { this.config = config.withThrottle(v); return this; }
        public Builder pacer(PacerConfig v) { this.config = config.withPacer(v); return this; }
        public Builder admission(AdmissionConfig v) { this.config = config.withAdmission(v); return this; }
        public Builder defaultDeadline(@Nullable Duration v) { this.defaultDeadline = v; return this; }
        /** Per-attempt timeout, applied to requests that set none; clipped to the remaining deadline. */
        public Builder attemptTimeout(@Nullable Duration v) { this.attemptTimeout = v; return this; }
        public Builder time(TimeSource v) { this.time = Objects.requireNonNull(v); return this; }
        public Builder random(RandomGenerator v) { this.random = Objects.requireNonNull(v); return this; }
        public Builder idempotencyKeys(Supplier<String> v) { this.idempotencyKeys = Objects.requireNonNull(v); return this; }
        public Builder listener(ClientListener v) { this.listener = Objects.requireNonNull(v); return this; }
        public Builder scheduler(Scheduler v) { this.scheduler = Objects.requireNonNull(v); return this; }
        public Builder responseReader(ResponseReader v) { this.responseReader = Objects.requireNonNull(v); return this; }
        public Builder tokenBucketStore(@Nullable TokenBucketStore v) { this.tokenBucketStore = v; return this; }
        public Builder retryBudgetStore(@Nullable RetryBudgetStore v) { this.retryBudgetStore = v; return this; }

        public SluiceHttpClient build() {
            if (defaultDeadline != null && defaultDeadline.isNegative()) {
                throw new IllegalArgumentException("defaultDeadline must not be negative");
            }
            if (attemptTimeout != null && (attemptTimeout.isNegative() || attemptTimeout.isZero())) {
                throw new IllegalArgumentException("attemptTimeout must be positive");
            }
            HttpClient http = httpClient != null ? httpClient
                    : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            return new DefaultSluiceHttpClient(http, config, defaultDeadline, attemptTimeout, time,
                    random != null ? random : new SplittableRandom(), idempotencyKeys, listener, scheduler,
                    responseReader, tokenBucketStore, retryBudgetStore);
        }
    }
}
