package dev.sluice.spring.boot.client;

import dev.sluice.client.CallOptions;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.transport.AttemptContext;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.Exchange;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.http.HttpFields;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Spring's {@link ClientHttpRequestInterceptor} over the Sluice SDK core ({@link CallDriver}): every
 * {@code RestClient} / {@code RestTemplate} call it intercepts is paced, retried only when worth it
 * (after the server's hint plus jitter, within the budget and the cap of 3 attempts) with one
 * Idempotency-Key across attempts, and refused locally by the adaptive throttle, as
 * {@code SluiceHttpClient} does — one retry engine.
 *
 * <p>A response the SDK returns, or a 4xx/5xx outside the rate-limit contract that is not retried,
 * goes on to the client's status handlers; a spent quota, a rate limit or overload after the
 * retries, or a local refusal is the SDK's typed {@code SluiceException}, which {@code RestClient}
 * wraps in its {@code ResourceAccessException} (find it with
 * {@code SluiceRetryPredicates.sluiceCause(e)}). Thread-safe; one instance per API.
 */
public final class SluiceClientHttpRequestInterceptor implements ClientHttpRequestInterceptor {

    private final CallDriver driver;
    private final TimeSource time;
    private final ResponseAnswers answers;
    private final Duration deadline;
    private final String keyHeader;
    private final Exchange<ClientHttpResponse> exchange;

    /**
     * @param deadline each call's deadline, all retries included; {@code null} for none
     */
    public SluiceClientHttpRequestInterceptor(CallDriver driver, TimeSource time, ResponseAnswers answers,
            Duration deadline) {
        this.driver = Objects.requireNonNull(driver, "driver");
        this.time = Objects.requireNonNull(time, "time");
        this.answers = Objects.requireNonNull(answers, "answers");
        this.deadline = deadline;
        this.keyHeader = driver.config().retry().idempotencyKeyHeader();
        this.exchange = new Exchange<>() {
            @Override
            public Answer.Response read(ClientHttpResponse response) {
                try {
                    String body = response instanceof Buffered b ? new String(b.body, StandardCharsets.UTF_8) : null;
                    return answers.read(response.getStatusCode().value(), fields(response.getHeaders()), body,
                            time.now());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }

            @Override
            public void discard(ClientHttpResponse response) {
                response.close();
            }
        };
    }

    /** The driver (its counters: {@code driver().stats()}). */
    public CallDriver driver() {
        return driver;
    }

    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
            throws IOException {
        CallOptions options = CallOptions.defaults().withDeadline(deadline);
        CallSpec spec = CallDriver.spec(request.getMethod().name(), request.getURI(),
                request.getHeaders().getFirst(keyHeader), options, null);
        try {
            return driver.executeBlocking(spec, context -> attempt(request, body, execution, context), exchange);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("interrupted");
            io.initCause(e);
            throw io;
        }
    }

    private ClientHttpResponse attempt(HttpRequest request, byte[] body, ClientHttpRequestExecution execution,
            AttemptContext context) throws IOException {
        if (context.idempotencyKey() != null && request.getHeaders().getFirst(keyHeader) == null) {
            request.getHeaders().set(keyHeader, context.idempotencyKey());
        }
        ClientHttpResponse response = execution.execute(request, body);
        if (!ResponseAnswers.readsBody(response.getStatusCode().value())) {
            return response;
        }
        try (InputStream in = response.getBody()) {
            byte[] bytes = in.readNBytes(ResponseAnswers.MAX_ERROR_BODY_BYTES);
            return new Buffered(response, bytes);
        }
    }

    private static HttpFields fields(HttpHeaders headers) {
        HttpFields.Builder b = HttpFields.builder();
        headers.forEach((name, values) -> values.forEach(v -> b.add(name, v)));
        return b.build();
    }

    /** An error response whose body was read (64 KiB at most) and can be read again. */
    private static final class Buffered implements ClientHttpResponse {
        private final ClientHttpResponse raw;
        private final byte[] body;

        Buffered(ClientHttpResponse raw, byte[] body) {
            this.raw = raw;
            this.body = body;
        }

        @Override
        public HttpStatusCode getStatusCode() throws IOException {
            return raw.getStatusCode();
        }

        @Override
        public String getStatusText() throws IOException {
            return raw.getStatusText();
        }

        @Override
        public HttpHeaders getHeaders() {
            return raw.getHeaders();
        }

        @Override
        public InputStream getBody() {
            return new ByteArrayInputStream(body);
        }

        @Override
        public void close() {
            raw.close();
        }
    }
}
