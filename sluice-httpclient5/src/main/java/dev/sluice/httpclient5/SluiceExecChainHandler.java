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
import dev.sluice.time.TimeSource;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.InputStreamEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;

/**
 * The classic (blocking) Apache HttpClient 5 exec-chain handler that sends every call through the
 * Sluice SDK core ({@link CallDriver}): pacing, classified retries after the server's hint plus
 * jitter, the retry budget and the cap of 3 attempts, the adaptive throttle, the admission queue,
 * one Idempotency-Key on every attempt — the engine of {@code SluiceHttpClient}, with HttpClient 5
 * as the transport.
 *
 * <pre>{@code
 * SluiceExecChainHandler sluice = SluiceExecChainHandler.create(ClientConfig.defaults()
 *         .withPacer(PacerConfig.documented(10, 20)));
 * try (CloseableHttpClient http = SluiceExecChainHandler.install(HttpClients.custom(), sluice).build()) {
 *     http.execute(new HttpGet(uri), response -> ...);
 * }
 * }</pre>
 *
 * <p>Results: a response the SDK returns (1xx–3xx), or a 4xx/5xx outside the rate-limit contract
 * that is not retried, is the call's response; everything else is the SDK's typed
 * {@link SluiceException} (an {@code IOException}). A request whose entity is not repeatable is
 * sent once. Per-call options: {@code context.setAttribute(SluiceExecChainHandler.CALL_OPTIONS, options)}.
 * Thread-safe: one instance serves one API.
 */
public final class SluiceExecChainHandler implements ExecChainHandler, AutoCloseable {

    /** The {@code HttpContext} attribute holding a call's {@link CallOptions}. */
    public static final String CALL_OPTIONS = "dev.sluice.call-options";

    /** The name it is installed under in the exec chain. */
    public static final String NAME = "sluice";

    /** An attempt's response with its error body, already buffered (null for a 1xx–3xx). */
    private record Attempted(ClassicHttpResponse response, String errorBody) {
    }

    private final CallDriver driver;
    private final TimeSource time;
    private final ResponseAnswers answers;
    private final String keyHeader;
    private final Exchange<Attempted> exchange;

    private SluiceExecChainHandler(CallDriver driver, TimeSource time, ResponseAnswers answers) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.time = Objects.requireNonNull(time, "time");
        this.answers = Objects.requireNonNull(answers, "answers");
        this.keyHeader = driver.config().retry().idempotencyKeyHeader();
        this.exchange = Exchange.of(
                a -> answers.read(a.response().getCode(), Hc5.fields(a.response()), a.errorBody(), time.now()),
                a -> closeQuietly(a.response()));
    }

    private static void closeQuietly(ClassicHttpResponse response) {
        try {
            response.close();
        } catch (IOException e) {
            // the connection is discarded with it
        }
    }

    /** A handler over a new core with {@code config}, system clocks and its own timer thread. */
    public static SluiceExecChainHandler create(ClientConfig config) {
        return new SluiceExecChainHandler(CallDriver.create(config), TimeSource.system(), ResponseAnswers.standard());
    }

    /** A handler over {@code driver} (its core's clocks must be {@code time}), reading with {@code answers}. */
    public static SluiceExecChainHandler create(CallDriver driver, TimeSource time, ResponseAnswers answers) {
        return new SluiceExecChainHandler(driver, time, answers);
    }

    /**
     * Puts {@code handler} first in the exec chain and turns off HttpClient's own retries
     * ({@code disableAutomaticRetries}: its default strategy re-sends on a 429 or 503 and on I/O
     * errors), so the SDK is the one layer that retries (SPEC §4.7).
     */
    public static HttpClientBuilder install(HttpClientBuilder builder, SluiceExecChainHandler handler) {
        return builder.addExecInterceptorFirst(NAME, handler).disableAutomaticRetries();
    }

    @Override
    public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
            throws IOException, HttpException {
        Object o = scope.clientContext.getAttribute(CALL_OPTIONS);
        CallOptions options = o instanceof CallOptions c ? c : CallOptions.defaults();
        String headerKey = request.getFirstHeader(keyHeader) != null ? request.getFirstHeader(keyHeader).getValue() : null;
        CallSpec spec;
        try {
            spec = CallDriver.spec(request.getMethod(), request.getUri(), headerKey, options, null);
        } catch (java.net.URISyntaxException e) {
            throw new HttpException("invalid request URI", e);
        }
        HttpEntity entity = request.getEntity();
        if (entity != null && !entity.isRepeatable()) {
            spec = spec.withRetries(false); // cannot be sent twice
        }
        ClassicHttpRequest template = ClassicRequestBuilder.copy(request).build();
        try {
            return driver.executeBlocking(spec, context -> attempt(template, scope, chain, context), exchange).response();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("interrupted");
            io.initCause(e);
            throw io;
        }
    }

    private Attempted attempt(ClassicHttpRequest template, ExecChain.Scope scope, ExecChain chain, AttemptContext context)
            throws IOException {
        ClassicHttpRequest request = ClassicRequestBuilder.copy(template).build();
        if (context.idempotencyKey() != null && !request.containsHeader(keyHeader)) {
            request.setHeader(keyHeader, context.idempotencyKey());
        }
        ClassicHttpResponse response;
        try {
            response = chain.proceed(request, scope);
        } catch (HttpException e) {
            throw new IOException(e); // a protocol error: a lost exchange for the core
        }
        if (!ResponseAnswers.readsBody(response.getCode()) || response.getEntity() == null) {
            return new Attempted(response, null);
        }
        return new Attempted(response, bufferErrorBody(response));
    }

    /** Reads an error body (at most 64 KiB of it) for classification, leaving it readable for the caller. */
    private static String bufferErrorBody(ClassicHttpResponse response) throws IOException {
        HttpEntity entity = response.getEntity();
        ContentType type = entity.getContentType() != null ? ContentType.parse(entity.getContentType()) : null;
        InputStream in = entity.getContent();
        byte[] head = in.readNBytes(ResponseAnswers.MAX_ERROR_BODY_BYTES + 1);
        if (head.length <= ResponseAnswers.MAX_ERROR_BODY_BYTES) {
            EntityUtils.consume(entity); // at its end: the connection goes back to the pool
            response.setEntity(new ByteArrayEntity(head, type));
            return new String(head, StandardCharsets.UTF_8);
        }
        response.setEntity(new InputStreamEntity(new SequenceInputStream(new ByteArrayInputStream(head), in), -1, type));
        return new String(Arrays.copyOf(head, ResponseAnswers.MAX_ERROR_BODY_BYTES), StandardCharsets.UTF_8);
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
