package dev.sluice.httpclient5;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.SluiceException;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.transport.AttemptContext;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.Exchange;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.client.transport.TransportFailures;
import dev.sluice.time.TimeSource;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.client5.http.impl.async.HttpAsyncClientBuilder;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;
import org.apache.hc.core5.http.nio.CapacityChannel;
import org.apache.hc.core5.http.support.BasicRequestBuilder;

/**
 * The async Apache HttpClient 5 exec-chain handler over the Sluice SDK core ({@link CallDriver}):
 * the same contract as {@link SluiceExecChainHandler}, with no thread waiting — retries and pacer
 * waits are scheduled, and the next attempt is sent from the driver's timer.
 *
 * <p>A 1xx–3xx response head is decided at once and streamed to the caller's consumer; a 4xx/5xx
 * body is buffered (at most 64 KiB kept) so the SDK can read its problem type, then either replayed
 * to the caller (a status outside the contract), dropped (the call is retried), or the call fails
 * with the SDK's typed {@link SluiceException}. A request whose entity producer is not repeatable
 * is sent once. Thread-safe: one instance serves one API.
 */
public final class SluiceAsyncExecChainHandler implements AsyncExecChainHandler, AutoCloseable {

    /** What one attempt came back with, and how it reaches the caller if it is the call's result. */
    private static final class Attempted {
        final HttpResponse response;
        final EntityDetails entity;
        final byte[] errorBody;
        final AsyncExecCallback caller;
        AsyncDataConsumer callerConsumer;

        Attempted(HttpResponse response, EntityDetails entity, byte[] errorBody, AsyncExecCallback caller) {
            this.response = response;
            this.entity = entity;
            this.errorBody = errorBody;
            this.caller = caller;
        }
    }

    private final CallDriver driver;
    private final TimeSource time;
    private final ResponseAnswers answers;
    private final String keyHeader;
    private final Exchange<Attempted> exchange;

    private SluiceAsyncExecChainHandler(CallDriver driver, TimeSource time, ResponseAnswers answers) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.time = Objects.requireNonNull(time, "time");
        this.answers = Objects.requireNonNull(answers, "answers");
        this.keyHeader = driver.config().retry().idempotencyKeyHeader();
        this.exchange = Exchange.of(a -> answers.read(a.response.getCode(), Hc5.fields(a.response),
                a.errorBody == null ? null : new String(a.errorBody, StandardCharsets.UTF_8), time.now()),
                // a 1xx–3xx not delivered is drained by the attempt's consumer; an error body is already read
                a -> { });
    }

    /** A handler over a new core with {@code config}, system clocks and its own timer thread. */
    public static SluiceAsyncExecChainHandler create(ClientConfig config) {
        return new SluiceAsyncExecChainHandler(CallDriver.create(config), TimeSource.system(), ResponseAnswers.standard());
    }

    /** A handler over {@code driver} (its core's clocks must be {@code time}), reading with {@code answers}. */
    public static SluiceAsyncExecChainHandler create(CallDriver driver, TimeSource time, ResponseAnswers answers) {
        return new SluiceAsyncExecChainHandler(driver, time, answers);
    }

    /** Puts {@code handler} first in the async exec chain and turns off HttpClient's own retries. */
    public static HttpAsyncClientBuilder install(HttpAsyncClientBuilder builder, SluiceAsyncExecChainHandler handler) {
        return builder.addExecInterceptorFirst(SluiceExecChainHandler.NAME, handler).disableAutomaticRetries();
    }

    @Override
    public void execute(HttpRequest request, AsyncEntityProducer producer, AsyncExecChain.Scope scope,
            AsyncExecChain chain, AsyncExecCallback callback) throws HttpException, IOException {
        Object o = scope.clientContext.getAttribute(SluiceExecChainHandler.CALL_OPTIONS);
        CallOptions options = o instanceof CallOptions c ? c : CallOptions.defaults();
        Header own = request.getFirstHeader(keyHeader);
        CallSpec spec;
        try {
            spec = CallDriver.spec(request.getMethod(), request.getUri(), own != null ? own.getValue() : null, options, null);
        } catch (URISyntaxException e) {
            throw new HttpException("invalid request URI", e);
        }
        if (producer != null && !producer.isRepeatable()) {
            spec = spec.withRetries(false);
        }
        HttpRequest template = BasicRequestBuilder.copy(request).build();
        CompletableFuture<Attempted> result = driver.execute(spec,
                context -> attempt(template, producer, scope, chain, callback, context), exchange);
        scope.cancellableDependency.setDependency(() -> result.cancel(true));
        result.whenComplete((a, error) -> {
            if (error != null) {
                Throwable c = TransportFailures.unwrap(error);
                callback.failed(c instanceof Exception e ? e : new IOException(c));
            } else if (a.errorBody != null) {
                replay(a); // a 4xx/5xx outside the contract: the caller reads it as sent
            } else {
                deliverHead(a);
            }
        });
    }

    private CompletableFuture<Attempted> attempt(HttpRequest template, AsyncEntityProducer producer,
            AsyncExecChain.Scope scope, AsyncExecChain chain, AsyncExecCallback caller, AttemptContext context) {
        HttpRequest request = BasicRequestBuilder.copy(template).build();
        if (context.idempotencyKey() != null && !request.containsHeader(keyHeader)) {
            request.setHeader(keyHeader, context.idempotencyKey());
        }
        if (producer != null && context.attempt() > 1) {
            producer.releaseResources(); // rewinds a repeatable producer for the next send
        }
        CompletableFuture<Attempted> f = new CompletableFuture<>();
        try {
            chain.proceed(request, producer, scope, new AttemptCallback(f, caller));
        } catch (HttpException | IOException | RuntimeException e) {
            f.completeExceptionally(e instanceof HttpException ? new IOException(e) : e);
        }
        return f;
    }

    /** The caller's consumer takes the body that follows (called while the attempt's head is handled). */
    private static void deliverHead(Attempted a) {
        try {
            a.callerConsumer = a.caller.handleResponse(a.response, a.entity);
        } catch (HttpException | IOException e) {
            a.caller.failed(e);
        }
    }

    private static void replay(Attempted a) {
        try {
            AsyncDataConsumer consumer = a.caller.handleResponse(a.response, a.entity);
            if (consumer != null) {
                consumer.consume(ByteBuffer.wrap(a.errorBody));
                consumer.streamEnd(null);
            }
            a.caller.completed();
        } catch (HttpException | IOException e) {
            a.caller.failed(e);
        }
    }

    /** One attempt's callback: decides on the head (1xx–3xx) or on the buffered error body. */
    private static final class AttemptCallback implements AsyncExecCallback {
        private final CompletableFuture<Attempted> attempt;
        private final AsyncExecCallback caller;
        private volatile Attempted delivered;
        private HttpResponse errorHead;
        private EntityDetails errorEntity;
        private final ByteArrayOutputStream errorBody = new ByteArrayOutputStream();

        AttemptCallback(CompletableFuture<Attempted> attempt, AsyncExecCallback caller) {
            this.attempt = attempt;
            this.caller = caller;
        }

        @Override
        public AsyncDataConsumer handleResponse(HttpResponse response, EntityDetails entity) {
            if (ResponseAnswers.readsBody(response.getCode()) && entity != null) {
                errorHead = response;
                errorEntity = entity;
                return new Buffering(errorBody);
            }
            if (ResponseAnswers.readsBody(response.getCode())) {
                errorHead = response; // no body: decided on completion
                return null;
            }
            Attempted a = new Attempted(response, entity, null, caller);
            attempt.complete(a); // decided synchronously: Return delivers the head to the caller
            if (a.callerConsumer != null) {
                delivered = a;
                return a.callerConsumer;
            }
            return entity == null ? null : new Buffering(null); // not delivered (cancelled): drain it
        }

        @Override
        public void handleInformationResponse(HttpResponse response) throws HttpException, IOException {
            caller.handleInformationResponse(response);
        }

        @Override
        public void completed() {
            if (delivered != null) {
                caller.completed();
            } else if (errorHead != null) {
                attempt.complete(new Attempted(errorHead, errorEntity, errorBody.toByteArray(), caller));
            }
        }

        @Override
        public void failed(Exception cause) {
            if (delivered != null) {
                caller.failed(cause);
            } else {
                attempt.completeExceptionally(cause);
            }
        }
    }

    /** Keeps the first 64 KiB of a body (or nothing, when {@code sink} is null) and drops the rest. */
    private static final class Buffering implements AsyncDataConsumer {
        private final ByteArrayOutputStream sink;

        Buffering(ByteArrayOutputStream sink) {
            this.sink = sink;
        }

        @Override
        public void updateCapacity(CapacityChannel channel) throws IOException {
            channel.update(Integer.MAX_VALUE);
        }

        @Override
        public void consume(ByteBuffer src) {
            if (sink != null) {
                int room = ResponseAnswers.MAX_ERROR_BODY_BYTES - sink.size();
                int n = Math.min(room, src.remaining());
                if (n > 0) {
                    byte[] chunk = new byte[n];
                    src.get(chunk);
                    sink.write(chunk, 0, n);
                }
            }
            src.position(src.limit());
        }

        @Override
        public void streamEnd(List<? extends Header> trailers) {
        }

        @Override
        public void releaseResources() {
        }
    }

    /** The SDK's counters for this handler's calls. */
    public ClientStats stats() {
        return driver.stats();
    }

    /** Cancels calls still waiting and stops the timer. */
    @Override
    public void close() {
        driver.close();
    }
}
