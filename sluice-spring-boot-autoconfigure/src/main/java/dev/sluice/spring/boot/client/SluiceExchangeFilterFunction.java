package dev.sluice.spring.boot.client;

import dev.sluice.client.CallOptions;
import dev.sluice.client.core.Answer;
import dev.sluice.client.core.CallSpec;
import dev.sluice.client.transport.AttemptContext;
import dev.sluice.client.transport.CallDriver;
import dev.sluice.client.transport.Exchange;
import dev.sluice.client.transport.ResponseAnswers;
import dev.sluice.client.transport.TransportFailures;
import dev.sluice.time.TimeSource;
import dev.sluice.wire.http.HttpFields;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Spring's {@link ExchangeFilterFunction} over the Sluice SDK core ({@link CallDriver}): every
 * {@code WebClient} exchange it filters is paced, retried only when worth it (after the server's
 * hint plus jitter, within the budget and the cap of 3 attempts) with one Idempotency-Key across
 * attempts, and refused locally by the adaptive throttle, as {@code SluiceHttpClient} does — one
 * retry engine. No thread waits: the waits are the driver's scheduled tasks.
 *
 * <p>A response the SDK returns, or a 4xx/5xx outside the rate-limit contract that is not retried,
 * is the exchange's {@link ClientResponse} (its error body, read for classification, 64 KiB at most,
 * can be read again), so {@code retrieve()}'s status handlers apply; a spent quota, a rate limit or
 * overload after the retries, or a local refusal is a {@code Mono} failed with the SDK's typed
 * {@code SluiceException} itself. Cancelling the subscription cancels the call (pending retries and
 * the attempt in flight). Thread-safe; one instance per API.
 */
public final class SluiceExchangeFilterFunction implements ExchangeFilterFunction {

    /** One attempt's response, with its error body when it was read. */
    private record Attempt(ClientResponse response, String errorBody) {
    }

    private final CallDriver driver;
    private final Duration deadline;
    private final String keyHeader;
    private final Exchange<Attempt> exchange;

    /**
     * @param driver the API's SDK core
     * @param time the wall clock an answer without {@code Date} is read with
     * @param answers how a response becomes the core's answer
     * @param deadline each call's deadline, all retries included; {@code null} for none
     */
    public SluiceExchangeFilterFunction(CallDriver driver, TimeSource time, ResponseAnswers answers, Duration deadline) {
        this.driver = Objects.requireNonNull(driver, "driver");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(answers, "answers");
        this.deadline = deadline;
        this.keyHeader = driver.config().retry().idempotencyKeyHeader();
        this.exchange = new Exchange<>() {
            @Override
            public Answer.Response read(Attempt a) {
                return answers.read(a.response().statusCode().value(), fields(a.response().headers().asHttpHeaders()),
                        a.errorBody(), time.now());
            }

            @Override
            public Answer.Failure failure(Throwable error) {
                // WebClient wraps the connector's I/O failure (refused, reset, timed out) in its own exception
                Throwable c = TransportFailures.unwrap(error);
                return TransportFailures.of(c instanceof WebClientRequestException w && w.getCause() != null
                        ? w.getCause() : c);
            }

            @Override
            public void discard(Attempt a) {
                a.response().releaseBody().subscribe(v -> { }, e -> { });
            }
        };
    }

    /** The driver (its counters: {@code driver().stats()}). */
    public CallDriver driver() {
        return driver;
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        return Mono.defer(() -> {
            CallSpec spec = CallDriver.spec(request.method().name(), request.url(),
                    request.headers().getFirst(keyHeader), CallOptions.defaults().withDeadline(deadline), null);
            CompletableFuture<Attempt> call = driver.execute(spec, context -> attempt(request, next, context), exchange);
            return Mono.fromFuture(call).map(Attempt::response);
        });
    }

    private CompletableFuture<Attempt> attempt(ClientRequest request, ExchangeFunction next, AttemptContext context) {
        ClientRequest sent = request;
        if (context.idempotencyKey() != null && request.headers().getFirst(keyHeader) == null) {
            sent = ClientRequest.from(request).header(keyHeader, context.idempotencyKey()).build();
        }
        return next.exchange(sent).flatMap(SluiceExchangeFilterFunction::buffered).toFuture();
    }

    /** An error response with its body read (64 KiB at most) and put back; any other as it is. */
    private static Mono<Attempt> buffered(ClientResponse response) {
        if (!ResponseAnswers.readsBody(response.statusCode().value())) {
            return Mono.just(new Attempt(response, null));
        }
        Flux<DataBuffer> body = DataBufferUtils.takeUntilByteCount(response.body(BodyExtractors.toDataBuffers()),
                ResponseAnswers.MAX_ERROR_BODY_BYTES);
        return DataBufferUtils.join(body).map(joined -> {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            DataBufferUtils.release(joined);
            return bytes;
        }).defaultIfEmpty(new byte[0]).map(bytes -> new Attempt(response.mutate()
                .body(Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(bytes)))).build(),
                new String(bytes, StandardCharsets.UTF_8)));
    }

    private static HttpFields fields(HttpHeaders headers) {
        HttpFields.Builder b = HttpFields.builder();
        headers.forEach((name, values) -> values.forEach(v -> b.add(name, v)));
        return b.build();
    }
}
