package dev.sluice.client.transport;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.ClientErrorException;
import dev.sluice.client.RetryScope;
import dev.sluice.client.ServerErrorException;
import dev.sluice.client.SluiceException;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientCore;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.core.CoreCall;
import dev.sluice.client.core.CoreEnvironment;
import dev.sluice.client.core.Decision;
import dev.sluice.client.internal.core.CallLoop;
import dev.sluice.client.internal.core.Handoff;
import dev.sluice.client.spi.Scheduler;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Drives one {@link ClientCore} for a transport other than the JDK {@code HttpClient}: OkHttp,
 * Apache HttpClient 5, Spring's {@code RestClient} and {@code WebClient} (DESIGN.md "Seams": the
 * core decides, a transport only sends). Every adapter is this loop plus a way to send one attempt
 * and read its answer, so pacing, retries, the budget, the adaptive throttle, the admission queue
 * and the Idempotency-Key behave exactly as in {@code SluiceHttpClient}: there is one retry engine.
 *
 * <p>Results: a response the core returns (1xx–3xx) is handed back. A 4xx or 5xx that is not part
 * of the rate-limit contract and is not (or no longer) retried — the core's
 * {@link ClientErrorException} / {@link ServerErrorException} — is handed back as the response too,
 * because the callers of these transports read statuses themselves (OkHttp's
 * {@code isSuccessful()}, Spring's status handlers). Everything else ends in the core's typed
 * {@link SluiceException}: a spent quota, a rate limit or overload after the retries, a budget,
 * deadline, shed or local throttle refusal, an idempotency conflict, a cost above the burst.
 *
 * <p>Waits never block a thread: the retry's time, the pacer's next token and queue waits are
 * tasks on the {@link Scheduler}. In {@link #executeBlocking} only the calling thread waits, for its
 * own call. One driver serves one API (one provider limit). Thread-safe.
 */
public final class CallDriver implements AutoCloseable {

    /** Sends one attempt asynchronously. */
    @FunctionalInterface
    public interface AsyncSend<R> {
        CompletableFuture<R> send(AttemptContext context);
    }

    /** Sends one attempt on the calling thread. */
    @FunctionalInterface
    public interface BlockingSend<R> {
        R send(AttemptContext context) throws IOException;
    }

    /** One logical call as the driver keeps it. */
    private static final class Job<R> implements CallLoop.Call {
        final AsyncSend<R> send;
        final Exchange<R> exchange;
        final CompletableFuture<R> result = new CompletableFuture<>();
        /** The attempt in flight, once one started. */
        volatile @Nullable CompletableFuture<R> inFlight;

        Job(AsyncSend<R> send, Exchange<R> exchange) {
            this.send = send;
            this.exchange = exchange;
        }

        @Override
        public CompletableFuture<R> result() {
            return result;
        }

        @Override
        public void cancelAttempt() {
            CompletableFuture<R> f = inFlight;
            if (f != null) {
                f.cancel(true);
            }
        }
    }

    private final ClientCore<Job<?>> core;
    private final ClientConfig config;
    private final TimeSource time;
    private final CallLoop<Job<?>> loop;

    private CallDriver(ClientConfig config, CoreEnvironment environment, @Nullable Scheduler scheduler) {
        this.config = config;
        this.core = ClientCore.create(config, environment);
        this.time = environment.time();
        this.loop = new CallLoop<>(core, time, scheduler, this::start);
    }

    /**
     * A driver over a new core.
     *
     * @param config the SDK settings (pacer, retry, budget, throttle, admission)
     * @param environment clocks, randomness, key minting, listener, shared stores
     * @param scheduler where waits are scheduled; {@code null} for one daemon thread owned (and
     *     stopped on {@link #close()}) by this driver
     */
    public static CallDriver create(ClientConfig config, CoreEnvironment environment,
            @Nullable Scheduler scheduler) {
        return new CallDriver(Objects.requireNonNull(config, "config"), Objects.requireNonNull(environment, "environment"),
                scheduler);
    }

    /** {@link #create} with system clocks, UUID keys, no listener and the driver's own timer. */
    public static CallDriver create(ClientConfig config) {
        return create(config, CoreEnvironment.system(), null);
    }

    /**
     * The core's view of a request: {@code options} applied, and retries off when the caller runs
     * inside {@link RetryScope} (SPEC §4.7: one layer retries).
     *
     * @param method the HTTP method
     * @param uri the request's URI; its authority keys the per-host figures
     * @param headerKey the request's own Idempotency-Key field, or {@code null}
     * @param attemptTimeout the transport's per-attempt timeout, or {@code null} when unknown
     */
    public static CallSpec spec(String method, URI uri, @Nullable String headerKey, CallOptions options,
            @Nullable Duration attemptTimeout) {
        String key = options.idempotencyKey() != null ? options.idempotencyKey() : headerKey;
        String authority = uri.getRawAuthority();
        String host = authority != null ? authority : String.valueOf(uri.getHost());
        boolean retries = options.retries() && !RetryScope.isActive();
        return new CallSpec(method, host, key, options.deadline(), options.priority(), options.cost(), attemptTimeout,
                retries, uri);
    }

    /** The settings this driver's core runs with (its Idempotency-Key field name, among others). */
    public ClientConfig config() {
        return config;
    }

    /** Counters since creation. */
    public ClientStats stats() {
        return core.stats();
    }

    /**
     * Runs a call whose attempts are sent asynchronously. Cancelling the returned future cancels
     * pending retries and the attempt in flight.
     *
     * @return the call's response (see the class comment for which), or a future failed with a
     *     {@link SluiceException}, or with what {@code send} failed with when it was not an I/O failure
     */
    public <R> CompletableFuture<R> execute(CallSpec spec, AsyncSend<R> send, Exchange<R> exchange) {
        Job<R> job = new Job<>(send, exchange);
        return loop.open(spec, job, job.result);
    }

    /**
     * Runs a call whose attempts are sent on the calling thread, which waits for its call only
     * (never for another's); waits between attempts are scheduled, and the thread sleeps until its
     * attempt may start.
     *
     * @throws SluiceException the typed reason the call has no usable response
     * @throws IOException what {@code send} threw, when it was not retried
     * @throws InterruptedException if the thread is interrupted; the call is cancelled
     */
    public <R> R executeBlocking(CallSpec spec, BlockingSend<R> send, Exchange<R> exchange)
            throws IOException, InterruptedException {
        Handoff handoff = new Handoff();
        CompletableFuture<R> result = execute(spec, context -> {
            CompletableFuture<R> attempt = new CompletableFuture<>();
            handoff.add(() -> {
                try {
                    attempt.complete(send.send(context));
                } catch (Throwable t) {
                    attempt.completeExceptionally(t);
                }
            });
            return attempt;
        }, exchange);
        try {
            return handoff.runUntilDone(result);
        } catch (CancellationException e) {
            InterruptedIOException io = new InterruptedIOException("call cancelled");
            io.initCause(e);
            throw io;
        }
    }

    /** Cancels every open call and stops the driver's own timer. */
    @Override
    public void close() {
        loop.close();
    }

    // --- one attempt ---

    @SuppressWarnings("unchecked")
    private <R> void start(CoreCall<Job<?>> call) {
        Job<R> job = (Job<R>) call.attachment();
        Duration remaining = call.hasDeadline() ? Duration.ofNanos(Math.max(0, call.deadlineNanos() - time.nanoTime()))
                : null;
        CompletableFuture<R> f;
        try {
            f = job.send.send(new AttemptContext(call.idempotencyKey(), call.attempts(), remaining));
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        job.inFlight = f;
        f.whenComplete((response, error) -> done(job, call, response, error));
    }

    private <R> void done(Job<R> job, CoreCall<Job<?>> call, R response, Throwable error) {
        if (job.result.isDone()) {
            core.cancel(call); // cancelled: the answer is not wanted
            if (response != null) {
                job.exchange.discard(response);
            }
            return;
        }
        Answer answer;
        if (error != null) {
            answer = job.exchange.failure(error);
            if (answer == null) {
                core.cancel(call);
                job.result.completeExceptionally(TransportFailures.unwrap(error));
                loop.pump();
                return;
            }
        } else {
            try {
                answer = job.exchange.read(response);
            } catch (RuntimeException e) {
                core.cancel(call);
                job.exchange.discard(response);
                job.result.completeExceptionally(e);
                loop.pump();
                return;
            }
        }
        Decision decision = core.onAnswer(call, answer);
        switch (decision) {
            case Decision.Return r -> job.result.complete(response);
            case Decision.RetryAfter r -> {
                if (response != null) {
                    job.exchange.discard(response);
                }
            }
            case Decision.Fail f -> {
                if (response != null && (f.error() instanceof ClientErrorException
                        || f.error() instanceof ServerErrorException)) {
                    job.result.complete(response); // the caller's own status handling applies
                } else {
                    if (response != null) {
                        job.exchange.discard(response);
                    }
                    job.result.completeExceptionally(f.error());
                }
            }
        }
        loop.pump();
    }
}
