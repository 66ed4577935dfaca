package dev.sluice.spring.boot.reactive;

import dev.sluice.edge.decision.BodyTap;
import dev.sluice.edge.decision.EdgeDecider;
import dev.sluice.edge.decision.ExchangeListener;
import dev.sluice.edge.decision.RequestHead;
import dev.sluice.edge.decision.Verdict;
import dev.sluice.edge.metrics.EdgeMetrics;
import dev.sluice.edge.response.EdgeResponse;
import dev.sluice.edge.response.Header;
import dev.sluice.edge.softlimit.SoftLimitNotifier;
import dev.sluice.time.TimeSource;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.reactivestreams.Publisher;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * The edge's decision in front of a WebFlux application's own handlers (SPEC §3): the same
 * {@link EdgeDecider} the Netty edge and the Servlet filter run — route match, caller
 * identification, usage endpoint, anonymous per-IP limits, the escalation, idempotency and shedding
 * stages, one limiter decision for all of a key's policies — and the same answers:
 * {@code RateLimit-Policy} / {@code RateLimit} on every limited response, 429/401/400/409/503
 * problem bodies with {@code Retry-After} and {@code Cache-Control: no-store},
 * {@code RateLimit-Warning} past the soft limit.
 *
 * <p>Nothing blocks: the decision is the decider's {@code CompletionStage}. A request the decision
 * forwards reaches the rest of the chain with the rate-limit fields already on the response. On a
 * route that honours Idempotency-Key, the request body is read whole first (at most
 * {@code maxBufferedBodyBytes}, larger bodies end in 413 from the server's own error handling: the
 * edge digests it, SPEC §3.11) and the handler's answer is buffered, so the idempotency stage can
 * record it and replay it to a retry; other requests stream untouched. Thread-safe.
 */
public final class SluiceWebFilter implements WebFilter, Ordered {

    private final EdgeDecider decider;
    private final ReactiveKeyResolver keys;
    private final EdgeMetrics metrics;
    private final SoftLimitNotifier notifier;
    private final TimeSource time;
    private final int maxBufferedBodyBytes;
    private final int order;

    /**
     * @param decider the edge's decision function, with its stages
     * @param keys where the API key comes from; {@code null} for the request's own
     *     {@code Authorization} field
     * @param metrics the edge's meters ({@code sluice.edge.*})
     * @param notifier where soft-limit events go (SPEC §3.8)
     * @param time the monotonic clock decisions are timed with
     * @param maxBufferedBodyBytes request bodies read whole for the idempotency stage, at most
     * @param order the filter's order among the application's {@code WebFilter}s
     */
    public SluiceWebFilter(EdgeDecider decider, ReactiveKeyResolver keys, EdgeMetrics metrics,
            SoftLimitNotifier notifier, TimeSource time, int maxBufferedBodyBytes, int order) {
        this.decider = decider;
        this.keys = keys;
        this.metrics = metrics;
        this.notifier = notifier;
        this.time = time;
        this.maxBufferedBodyBytes = maxBufferedBodyBytes;
        this.order = order;
    }

    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        long start = time.nanoTime();
        RequestHead head = head(exchange.getRequest(), start);
        return Mono.fromCompletionStage(() -> decider.decide(head)).flatMap(verdict -> {
            if (!(verdict instanceof Verdict.Replay)) {
                metrics.decision(verdict.record(), time.nanoTime() - start);
            }
            return switch (verdict) {
                case Verdict.Answer a -> write(exchange.getResponse(), a.response());
                case Verdict.Replay r -> body(exchange.getRequest()).flatMap(body -> {
                    boolean same = HexFormat.of().formatHex(sha256().digest(body)).equals(r.bodySha256());
                    metrics.decision(same ? r.record() : r.conflictRecord(), time.nanoTime() - start);
                    return write(exchange.getResponse(), same ? r.replay() : r.conflict());
                });
                case Verdict.Forward f -> forward(exchange, chain, f);
            };
        });
    }

    private Mono<Void> forward(ServerWebExchange exchange, WebFilterChain chain, Verdict.Forward f) {
        f.warnings().forEach(notifier::offer);
        ServerHttpResponse response = exchange.getResponse();
        for (Header h : f.responseHeaders()) {
            response.getHeaders().add(h.name(), h.value());
        }
        List<BodyTap> taps = new ArrayList<>();
        for (ExchangeListener l : f.listeners()) {
            if (l instanceof BodyTap t) {
                taps.add(t);
            }
        }
        AtomicBoolean told = new AtomicBoolean();
        Mono<Void> handled;
        if (taps.isEmpty()) {
            handled = chain.filter(exchange).then(Mono.fromRunnable(() -> tell(f, told, status(response))));
        } else {
            handled = body(exchange.getRequest()).flatMap(body -> {
                for (BodyTap t : taps) {
                    t.onRequestBody(ByteBuffer.wrap(body).asReadOnlyBuffer());
                    t.onRequestComplete();
                }
                ServerHttpRequest request = new ServerHttpRequestDecorator(exchange.getRequest()) {
                    @Override
                    public Flux<DataBuffer> getBody() {
                        return Flux.defer(() -> Flux.just(response.bufferFactory().wrap(body)));
                    }
                };
                Recording recorded = new Recording(response, f, taps, told);
                return chain.filter(exchange.mutate().request(request).response(recorded).build())
                        .then(Mono.defer(recorded::completeWithoutBody));
            });
        }
        return handled.doFinally(signal -> {
            boolean completed = signal == SignalType.ON_COMPLETE;
            for (ExchangeListener l : f.listeners()) {
                l.onEnd(completed);
            }
        });
    }

    private void tell(Verdict.Forward f, AtomicBoolean told, int status) {
        if (!told.compareAndSet(false, true)) {
            return;
        }
        metrics.upstreamStatus(f.record().route(), status);
        for (ExchangeListener l : f.listeners()) {
            l.onUpstreamResponse(status); // an application 503 is refunded (SPEC §3.9)
        }
    }

    private static int status(ServerHttpResponse response) {
        HttpStatusCode s = response.getStatusCode();
        return s == null ? 200 : s.value();
    }

    /** The request body, read whole (at most {@code maxBufferedBodyBytes}); empty bytes for none. */
    private Mono<byte[]> body(ServerHttpRequest request) {
        return DataBufferUtils.join(request.getBody(), maxBufferedBodyBytes).map(joined -> {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            DataBufferUtils.release(joined);
            return bytes;
        }).defaultIfEmpty(new byte[0]);
    }

    private RequestHead head(ServerHttpRequest request, long receivedNanos) {
        HttpHeaders headers = request.getHeaders();
        List<String> authorization;
        if (keys != null) {
            String key = keys.apiKey(request);
            authorization = key == null ? List.of() : List.of("Bearer " + key);
        } else {
            authorization = values(headers, "Authorization");
        }
        String path = request.getPath().pathWithinApplication().value();
        String query = request.getURI().getRawQuery() == null ? "" : request.getURI().getRawQuery();
        List<String> length = values(headers, "Content-Length");
        boolean bodyExpected = headers.getContentLength() > 0 || headers.getFirst("Transfer-Encoding") != null;
        InetSocketAddress remote = request.getRemoteAddress();
        String address = remote == null ? "" : remote.getAddress() != null ? remote.getAddress().getHostAddress()
                : remote.getHostString();
        return new RequestHead(request.getMethod().name(), path.isEmpty() ? "/" : path, authorization, length,
                bodyExpected, address, values(headers, "Idempotency-Key"), values(headers, "Request-Timeout"),
                receivedNanos, query);
    }

    private static List<String> values(HttpHeaders headers, String name) {
        List<String> v = headers.get(name);
        return v == null ? List.of() : v;
    }

    private static Mono<Void> write(ServerHttpResponse response, EdgeResponse answer) {
        response.setStatusCode(HttpStatusCode.valueOf(answer.status()));
        for (Header h : answer.headers()) {
            if (h.name().equalsIgnoreCase("Content-Length")) {
                continue; // set from the body below
            }
            response.getHeaders().add(h.name(), h.value());
        }
        response.getHeaders().setContentLength(answer.body().length);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(answer.body())));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /**
     * The handler's response, buffered whole so the idempotency stage can record it (SPEC §3.11):
     * the listeners hear the status, the taps see the head and body, then the bytes go out.
     */
    private final class Recording extends ServerHttpResponseDecorator {
        private final Verdict.Forward forward;
        private final List<BodyTap> taps;
        private final AtomicBoolean told;
        private final AtomicBoolean recorded = new AtomicBoolean();

        Recording(ServerHttpResponse response, Verdict.Forward forward, List<BodyTap> taps, AtomicBoolean told) {
            super(response);
            this.forward = forward;
            this.taps = taps;
            this.told = told;
        }

        @Override
        public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
            return DataBufferUtils.join(Flux.from(body)).map(joined -> {
                byte[] bytes = new byte[joined.readableByteCount()];
                joined.read(bytes);
                DataBufferUtils.release(joined);
                return bytes;
            }).defaultIfEmpty(new byte[0]).flatMap(bytes -> {
                record(bytes);
                return getDelegate().writeWith(Mono.fromSupplier(() -> bufferFactory().wrap(bytes)));
            });
        }

        @Override
        public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
            return writeWith(Flux.from(body).concatMap(Flux::from));
        }

        @Override
        public Mono<Void> setComplete() {
            record(new byte[0]);
            return getDelegate().setComplete();
        }

        /** After the handler: a response that wrote no body is recorded with an empty one. */
        Mono<Void> completeWithoutBody() {
            record(new byte[0]);
            return Mono.empty();
        }

        private void record(byte[] body) {
            if (!recorded.compareAndSet(false, true)) {
                return;
            }
            int status = status(getDelegate());
            tell(forward, told, status);
            List<Map.Entry<String, String>> fields = new ArrayList<>();
            getHeaders().forEach((name, values) -> values.forEach(v ->
                    fields.add(new AbstractMap.SimpleImmutableEntry<>(name, v))));
            for (BodyTap t : taps) {
                t.onResponseHead(status, fields);
                t.onResponseBody(ByteBuffer.wrap(body).asReadOnlyBuffer());
                t.onResponseComplete();
            }
        }
    }
}
