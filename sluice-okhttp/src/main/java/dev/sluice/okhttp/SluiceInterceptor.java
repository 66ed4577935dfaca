package dev.sluice.okhttp;

import dev.sluice.client.CallOptions;
import dev.sluice.client.ClientConfig;
import dev.sluice.client.SluiceException;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.core.ClientStats;
import dev.sluice.client.transport.AttemptContext;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.Exchange;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.http.HttpFields;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * An OkHttp application {@link Interceptor} that sends every call through the Sluice SDK core
 * ({@link CallDriver}): paced below the API's limit, retried only when worth it (after the server's
 * hint plus jitter, within the budget and the cap of 3 attempts), one Idempotency-Key on every
 * attempt of a non-idempotent call, the adaptive throttle, the admission queue — the same engine as
 * {@code SluiceHttpClient}, with OkHttp as the transport.
 *
 * <pre>{@code
 * SluiceInterceptor sluice = SluiceInterceptor.create(ClientConfig.defaults()
 *         .withPacer(PacerConfig.documented(10, 20)));
 * OkHttpClient http = SluiceInterceptor.install(new OkHttpClient.Builder(), sluice).build();
 * try (Response r = http.newCall(request).execute()) { ... }
 * catch (QuotaExceededException e) { ... }   // every SluiceException is an IOException
 * }</pre>
 *
 * <p>Results: a response the SDK returns (1xx–3xx), or a 4xx/5xx outside the rate-limit contract
 * that is not retried, is the call's {@link Response}; a spent quota, a rate limit or overload
 * after the retries, a budget, deadline or shed refusal end the call with the SDK's typed
 * {@link SluiceException} (an {@code IOException}, so {@code Call.execute} and {@code Callback.onFailure}
 * carry it). Per-call options go in the request's tag: {@code request.newBuilder().tag(CallOptions.class,
 * CallOptions.defaults().withDeadline(...))}.
 *
 * <p>It must be an <em>application</em> interceptor ({@code addInterceptor}): it calls
 * {@code chain.proceed} once per attempt, and closes each response it does not return before the
 * next. With {@code enqueue}, waits between attempts hold the dispatcher's thread for that call.
 * Thread-safe: one instance serves one API (one provider limit).
 */
public final class SluiceInterceptor implements Interceptor, AutoCloseable {

    private final CallDriver driver;
    private final String keyHeader;
    private final TimeSource time;
    private final ResponseAnswers answers;
    private final Exchange<Response> exchange;

    private SluiceInterceptor(CallDriver driver, TimeSource time, ResponseAnswers answers) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.time = Objects.requireNonNull(time, "time");
        this.answers = Objects.requireNonNull(answers, "answers");
        this.keyHeader = driver.config().retry().idempotencyKeyHeader();
        this.exchange = Exchange.of(this::readAnswer, Response::close);
    }

    /** An interceptor over a new core with {@code config}, system clocks and its own timer thread. */
    public static SluiceInterceptor create(ClientConfig config) {
        return new SluiceInterceptor(CallDriver.create(config), TimeSource.system(), ResponseAnswers.standard());
    }

    /**
     * An interceptor over {@code driver} (its core's clocks must be {@code time}), reading responses
     * with {@code answers}.
     */
    public static SluiceInterceptor create(CallDriver driver, TimeSource time, ResponseAnswers answers) {
        return new SluiceInterceptor(driver, time, answers);
    }

    /**
     * Adds {@code interceptor} as an application interceptor and turns off OkHttp's own silent
     * re-send on a failed connection ({@code retryOnConnectionFailure}), so the SDK is the one layer
     * that retries (SPEC §4.7) and every attempt is counted.
     */
    public static OkHttpClient.Builder install(OkHttpClient.Builder builder, SluiceInterceptor interceptor) {
        return builder.addInterceptor(interceptor).retryOnConnectionFailure(false);
    }

    @Override
    public Response intercept(Chain chain) throws IOException {
        Request request = chain.request();
        CallOptions options = request.tag(CallOptions.class);
        CallSpec spec = CallDriver.spec(request.method(), request.url().uri(), request.header(keyHeader),
                options != null ? options : CallOptions.defaults(),
                Duration.ofMillis(chain.readTimeoutMillis()));
        try {
            return driver.executeBlocking(spec, context -> attempt(chain, request, context), exchange);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            java.io.InterruptedIOException io = new java.io.InterruptedIOException("interrupted");
            io.initCause(e);
            throw io;
        }
    }

    private Response attempt(Chain chain, Request request, AttemptContext context) throws IOException {
        Request sent = request;
        if (context.idempotencyKey() != null && request.header(keyHeader) == null) {
            sent = request.newBuilder().header(keyHeader, context.idempotencyKey()).build();
        }
        Chain c = chain;
        if (context.remaining() != null) {
            // one attempt never outlives the call's deadline
            int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, context.remaining().toMillis()));
            if (chain.readTimeoutMillis() == 0 || millis < chain.readTimeoutMillis()) {
                c = chain.withReadTimeout(millis, TimeUnit.MILLISECONDS);
            }
        }
        return c.proceed(sent);
    }

    private Answer.Response readAnswer(Response response) {
        String errorBody = null;
        if (ResponseAnswers.readsBody(response.code())) {
            try {
                errorBody = response.peekBody(ResponseAnswers.MAX_ERROR_BODY_BYTES).string();
            } catch (IOException e) {
                errorBody = null; // classified from the status and fields alone
            }
        }
        return answers.read(response.code(), HttpFields.ofMultimap(response.headers().toMultimap()), errorBody,
                time.now());
    }

    /** The SDK's counters for this interceptor's calls. */
    public ClientStats stats() {
        return driver.stats();
    }

    /** Cancels calls still waiting and stops the timer. */
    @Override
    public void close() {
        driver.close();
    }
}
