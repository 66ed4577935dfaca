package dev.sluice.client.internal.http;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientErrorException;
import dev.sluice.client.ClientListener;
import dev.sluice.client.Fallback;
import dev.sluice.client.FallbackReason;
import dev.sluice.client.RetryScope;
import dev.sluice.client.SluiceException;
import dev.sluice.client.SluiceHttpClient;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.core.CoreCall;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.core.Decision;
import dev.sluice.client.internal.core.CallLoop;
import dev.sluice.client.internal.core.DefaultClientCore;
import dev.sluice.client.internal.core.Handoff;
import dev.sluice.client.spi.ResponseReader;
import dev.sluice.client.spi.RetryBudgetStore;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.client.spi.TokenBucketStore;
import dev.sluice.client.transport.TransportFailures;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.dialect.DialectRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * {@link SluiceHttpClient} over the JDK {@link HttpClient}: a driver of the transport-free
 * {@link DefaultClientCore}. Each attempt passes the request interceptors (Idempotency-Key, attempt
 * timeout), goes out with {@code sendAsync} (or, for a blocking {@code send}, with the JDK's blocking
 * {@code send} on the caller's own thread), and its response is read into a snapshot for the core
 * to decide. Every wait is a task on the {@link Scheduler}; no thread blocks except a caller of the
 * synchronous {@code send}, on its own call.
 */
public final class DefaultSluiceHttpClient implements SluiceHttpClient {

    /** One logical call as the transport sees it. */
    static final class Exchange<T> implements CallLoop.Call {
        final HttpRequest request;
        final HttpResponse.BodyHandler<T> handler;
        final CompletableFuture<HttpResponse<T>> result = new CompletableFuture<>();
        /** For a blocking {@code send}: the attempts its caller's thread is to send; else {@code null}. */
        final @Nullable Handoff handoff;
        /** The attempt the JDK client is sending asynchronously, once one started. */
        volatile @Nullable CompletableFuture<?> inFlight;
        /** The caller's thread while it is inside the JDK's blocking {@code send}; guarded by {@code this}. */
        private @Nullable Thread sender;
        private boolean aborted;

        Exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler, @Nullable Handoff handoff) {
            this.request = request;
            this.handler = handler;
            this.handoff = handoff;
        }

        @Override
        public CompletableFuture<HttpResponse<T>> result() {
            return result;
        }

        @Override
        public void cancelAttempt() {
            CompletableFuture<?> f = inFlight;
            if (f != null) {
                f.cancel(true);
            }
            abort();
        }

        synchronized void sending(Thread thread) {
            sender = thread;
        }

        /** The blocking attempt returned; clears the interrupt {@link #abort} may have left behind. */
        synchronized void sent() {
            sender = null;
            if (aborted) {
                Thread.interrupted();
            }
        }

        /** Stops the blocking attempt in flight, if any: the JDK's {@code send} cancels on interrupt. */
        synchronized void abort() {
            if (sender != null) {
                aborted = true;
                sender.interrupt();
            }
        }
    }

    private final HttpClient http;
    private final DefaultClientCore<Exchange<?>> core;
    private final TimeSource time;
    private final CallLoop<Exchange<?>> loop;
    private final SnapshotReading reading;
    private final List<RequestInterceptor> interceptors;
    private final @Nullable Duration defaultDeadline;
    private final @Nullable Duration attemptTimeout;
    private final String keyHeader;
    private final AtomicInteger busy = new AtomicInteger();

    public DefaultSluiceHttpClient(HttpClient http, ClientConfig config, @Nullable Duration defaultDeadline,
            @Nullable Duration attemptTimeout, TimeSource time, RandomGenerator random,
            Supplier<String> idempotencyKeys, ClientListener listener, @Nullable Scheduler scheduler,
            @Nullable ResponseReader reader, @Nullable TokenBucketStore bucket, @Nullable RetryBudgetStore budget) {
        this.http = http;
        this.time = time;
        this.core = new DefaultClientCore<>(config, new CoreEnvironment(time, random, idempotencyKeys, listener,
                bucket, budget));
        this.loop = new CallLoop<>(core, time, scheduler, this::startAttempt);
        this.reading = new SnapshotReading(reader != null ? reader : DialectRegistry.standard()::read);
        this.keyHeader = config.retry().idempotencyKeyHeader();
        this.interceptors = List.of(new IdempotencyKeyInterceptor(keyHeader), new AttemptTimeoutInterceptor(attemptTimeout));
        this.defaultDeadline = defaultDeadline;
        this.attemptTimeout = attemptTimeout;
    }

    /**
     * Sends on the caller's thread: every attempt the core starts for this call is handed to the
     * caller, which sends it with the JDK's blocking {@code send} and reads its answer itself. A call
     * the core grants at once therefore costs no thread hand-off (the JDK completes a public
     * {@code sendAsync} on the common pool); waits (pacing, queueing, a retry's delay) are still
     * scheduled, and the caller sleeps until its next attempt is handed over.
     */
    @Override
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler, CallOptions options)
            throws IOException, InterruptedException {
        Handoff handoff = new Handoff();
        return handoff.runUntilDone(submit(new Exchange<>(request, handler, handoff), options));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
            CallOptions options) {
        return submit(new Exchange<>(request, handler, null), options);
    }

    private <T> CompletableFuture<HttpResponse<T>> submit(Exchange<T> ex, CallOptions options) {
        HttpRequest request = ex.request;
        String key = options.idempotencyKey() != null ? options.idempotencyKey()
                : request.headers().firstValue(keyHeader).orElse(null);
        Duration deadline = options.deadline() != null ? options.deadline() : defaultDeadline;
        boolean retries = options.retries() && !RetryScope.isActive(); // one layer retries (SPEC §4.7)
        CallSpec spec = new CallSpec(request.method(), host(request.uri()), key, deadline, options.priority(),
                options.cost(), request.timeout().orElse(attemptTimeout), retries, request.uri());
        return loop.open(spec, ex, ex.result);
    }

    @Override
    public <T> T sendOrElse(HttpRequest request, HttpResponse.BodyHandler<T> handler, CallOptions options,
            Fallback<T> fallback) throws IOException, InterruptedException {
        try {
            return send(request, handler, options).body();
        } catch (SluiceException e) {
            Optional<FallbackReason> reason = FallbackReason.of(e);
            if (reason.isEmpty()) {
                throw e;
            }
            T answer;
            try {
                answer = RetryScope.call(() -> fallback.apply(reason.get(), e));
            } catch (IOException | RuntimeException | InterruptedException x) {
                throw x;
            } catch (Exception x) {
                throw new IOException("fallback failed", x);
            }
            core.recordFallback(host(request.uri()), reason.get());
            return answer;
        }
    }

    @Override
    public CompletableFuture<Void> seedFromUsage(HttpRequest usageRequest) {
        return http.sendAsync(usageRequest, HttpResponse.BodyHandlers.ofString()).thenCompose(res -> {
            if (res.statusCode() / 100 != 2) {
                return CompletableFuture.failedFuture(new IOException("usage endpoint answered " + res.statusCode()));
            }
            java.time.Instant responseTime = dev.sluice.wire.retryafter.RetryAfter.responseTime(
                    dev.sluice.wire.http.HttpFields.ofMultimap(res.headers().map()), time.now());
            try {
                core.observe(UsageSeed.parse(res.body(), responseTime));
                return CompletableFuture.completedFuture(null);
            } catch (IOException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
    }

    @Override
    public ClientStats stats() {
        return core.stats();
    }

    /** Exchanges being sent or answered right now (for tests that drive a manual scheduler). */
    public int busy() {
        return busy.get();
    }

    /** The core this client drives (for diagnostics and tests). */
    public DefaultClientCore<Exchange<?>> core() {
        return core;
    }

    @Override
    public void close() {
        loop.close();
    }

    // --- one attempt ---

    @SuppressWarnings("unchecked")
    private <T> void startAttempt(CoreCall<Exchange<?>> call) {
        Exchange<T> ex = (Exchange<T>) call.attachment();
        long remaining = call.hasDeadline() ? call.deadlineNanos() - time.nanoTime() : Long.MAX_VALUE;
        RequestInterceptor.AttemptContext ctx = new RequestInterceptor.AttemptContext(call.idempotencyKey(),
                remaining, call.hasDeadline(), call.attempts());
        HttpRequest req = ex.request;
        for (RequestInterceptor i : interceptors) {
            req = i.intercept(req, ctx);
        }
        if (ex.handoff != null) {
            HttpRequest sent = req;
            busy.incrementAndGet(); // counted from the hand-over, so a busy() of 0 means nothing is pending
            ex.handoff.add(() -> sendBlocking(ex, call, sent));
            return;
        }
        busy.incrementAndGet();
        CompletableFuture<HttpResponse<Payload<T>>> f;
        try {
            f = http.sendAsync(req, Payload.handler(ex.handler));
        } catch (RuntimeException e) {
            busy.decrementAndGet();
            core.cancel(call);
            ex.result.completeExceptionally(e);
            return;
        }
        ex.inFlight = f;
        HttpRequest sent = req;
        f.whenComplete((response, error) -> {
            try {
                onAttemptDone(ex, call, sent, response, error);
            } finally {
                busy.decrementAndGet();
            }
        });
    }

    /**
     * One attempt of a blocking {@code send}, on its caller's thread. An interrupt of the caller
     * stops the attempt (the JDK cancels its exchange) and is left set for the wait loop in
     * {@link #send}, which cancels the call.
     */
    private <T> void sendBlocking(Exchange<T> ex, CoreCall<Exchange<?>> call, HttpRequest req) {
        try {
            if (ex.result.isDone()) {
                core.cancel(call);
                return;
            }
            HttpResponse<Payload<T>> response = null;
            Throwable error = null;
            ex.sending(Thread.currentThread());
            try {
                response = http.send(req, Payload.handler(ex.handler));
            } catch (InterruptedException e) {
                if (!ex.result.isDone()) {
                    Thread.currentThread().interrupt();
                }
                return;
            } catch (IOException | RuntimeException e) {
                error = e;
            } finally {
                ex.sent();
            }
            onAttemptDone(ex, call, req, response, error);
        } finally {
            busy.decrementAndGet();
        }
    }

    private <T> void onAttemptDone(Exchange<T> ex, CoreCall<Exchange<?>> call, HttpRequest sent,
            @Nullable HttpResponse<Payload<T>> response, @Nullable Throwable error) {
        if (ex.result.isDone()) {
            core.cancel(call); // the caller cancelled; the answer is not wanted
            return;
        }
        Answer answer;
        if (error != null) {
            answer = FailureKinds.of(error, sent.method());
            if (answer == null) {
                core.cancel(call);
                ex.result.completeExceptionally(TransportFailures.unwrap(error));
                loop.pump();
                return;
            }
        } else {
            try {
                answer = reading.read(Objects.requireNonNull(response, "an attempt ends with a response or an error"),
                        time.now());
            } catch (RuntimeException e) {
                core.cancel(call);
                ex.result.completeExceptionally(e);
                loop.pump();
                return;
            }
        }
        Decision decision = core.onAnswer(call, answer);
        switch (decision) {
            case Decision.Return r -> {
                HttpResponse<Payload<T>> ok = Objects.requireNonNull(response, "only a response is returned");
                if (ok.body() instanceof Payload.Delivered<T> d) {
                    ex.result.complete(new DeliveredResponse<>(ok, d.body(), sent, call.attempts(), call.waited(),
                            call.id(), call.idempotencyKey()));
                } else {
                    ex.result.completeExceptionally(new ClientErrorException("status " + ok.statusCode()
                            + " was read as a success but its body was consumed as an error body",
                            ok.statusCode(), null, call.attempts()));
                }
            }
            case Decision.RetryAfter r -> {
                // re-queued by the core; the pump below schedules it
            }
            case Decision.Fail f -> ex.result.completeExceptionally(f.error());
        }
        loop.pump();
    }

    private static String host(URI uri) {
        String authority = uri.getRawAuthority();
        return authority != null ? authority : String.valueOf(uri.getHost());
    }
}
