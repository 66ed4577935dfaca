package dev.sluice.spring.boot.servlet;

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
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * The edge's decision in front of a Servlet application's own handlers (SPEC §3): the same
 * {@link EdgeDecider} the Netty edge runs — route match, caller identification, usage endpoint,
 * anonymous per-IP limits, the escalation, idempotency and shedding stages, one limiter decision
 * for all of a key's policies — and the same answers: {@code RateLimit-Policy} / {@code RateLimit}
 * on every limited response, 429/401/400/409/503 problem bodies with {@code Retry-After} and
 * {@code Cache-Control: no-store}, {@code RateLimit-Warning} past the soft limit.
 *
 * <p>A request the decision forwards reaches the rest of the filter chain with the rate-limit fields
 * already on the response. On a route that honours Idempotency-Key, the request body is read whole
 * first (bounded by {@code maxBufferedBodyBytes}: the edge digests it, SPEC §3.11) and the
 * application's answer is buffered, so the idempotency stage can record it and replay it to a
 * retry; other requests stream untouched. Thread-safe; one instance serves every request.
 */
public final class SluiceServletFilter implements Filter, org.springframework.core.Ordered {

    private final EdgeDecider decider;
    private final KeyResolver keys;
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
     * @param order the filter's order
     */
    public SluiceServletFilter(EdgeDecider decider, KeyResolver keys, EdgeMetrics metrics, SoftLimitNotifier notifier,
            TimeSource time, int maxBufferedBodyBytes, int order) {
        this.decider = decider;
        this.keys = keys;
        this.metrics = metrics;
        this.notifier = notifier;
        this.time = time;
        this.maxBufferedBodyBytes = maxBufferedBodyBytes;
        this.order = order;
    }

    /** Its place among the application's filters (Spring Boot registers filter beans in this order). */
    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            chain.doFilter(req, res);
            return;
        }
        long start = time.nanoTime();
        RequestHead head = head(request, start);
        Verdict verdict;
        try {
            verdict = decider.decide(head).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw new ServletException("the Sluice decision failed", e.getCause());
        }
        if (!(verdict instanceof Verdict.Replay)) {
            metrics.decision(verdict.record(), time.nanoTime() - start);
        }
        switch (verdict) {
            case Verdict.Answer a -> write(response, a.response());
            case Verdict.Replay r -> {
                byte[] body = request.getInputStream().readNBytes(maxBufferedBodyBytes + 1);
                boolean same = HexFormat.of().formatHex(sha256().digest(body)).equals(r.bodySha256());
                metrics.decision(same ? r.record() : r.conflictRecord(), time.nanoTime() - start);
                write(response, same ? r.replay() : r.conflict());
            }
            case Verdict.Forward f -> forward(request, response, chain, f);
        }
    }

    private void forward(HttpServletRequest request, HttpServletResponse response, FilterChain chain, Verdict.Forward f)
            throws IOException, ServletException {
        f.warnings().forEach(notifier::offer);
        for (Header h : f.responseHeaders()) {
            response.addHeader(h.name(), h.value());
        }
        List<BodyTap> taps = new ArrayList<>();
        for (ExchangeListener l : f.listeners()) {
            if (l instanceof BodyTap t) {
                taps.add(t);
            }
        }
        boolean completed = false;
        try {
            if (taps.isEmpty()) {
                chain.doFilter(request, response);
                tell(f, response.getStatus());
            } else {
                byte[] body = request.getInputStream().readNBytes(maxBufferedBodyBytes);
                for (BodyTap t : taps) {
                    t.onRequestBody(ByteBuffer.wrap(body).asReadOnlyBuffer());
                    t.onRequestComplete();
                }
                ContentCachingResponseWrapper recorded = new ContentCachingResponseWrapper(response);
                chain.doFilter(new BufferedBodyRequest(request, body), recorded);
                tell(f, recorded.getStatus());
                List<Map.Entry<String, String>> fields = new ArrayList<>();
                for (String name : recorded.getHeaderNames()) {
                    for (String value : recorded.getHeaders(name)) {
                        fields.add(new AbstractMap.SimpleImmutableEntry<>(name, value));
                    }
                }
                if (recorded.getContentType() != null && recorded.getHeader("Content-Type") == null) {
                    fields.add(new AbstractMap.SimpleImmutableEntry<>("Content-Type", recorded.getContentType()));
                }
                byte[] answer = recorded.getContentAsByteArray();
                for (BodyTap t : taps) {
                    t.onResponseHead(recorded.getStatus(), fields);
                    t.onResponseBody(ByteBuffer.wrap(answer).asReadOnlyBuffer());
                    t.onResponseComplete();
                }
                recorded.copyBodyToResponse();
            }
            completed = true;
        } finally {
            for (ExchangeListener l : f.listeners()) {
                l.onEnd(completed);
            }
        }
    }

    private void tell(Verdict.Forward f, int status) {
        metrics.upstreamStatus(f.record().route(), status);
        for (ExchangeListener l : f.listeners()) {
            l.onUpstreamResponse(status); // an application 503 is refunded (SPEC §3.9)
        }
    }

    private RequestHead head(HttpServletRequest request, long receivedNanos) {
        List<String> authorization;
        if (keys != null) {
            String key = keys.apiKey(request);
            authorization = key == null ? List.of() : List.of("Bearer " + key);
        } else {
            authorization = Collections.list(request.getHeaders("Authorization"));
        }
        String path = request.getRequestURI().substring(request.getContextPath().length());
        String query = request.getQueryString() == null ? "" : request.getQueryString();
        List<String> length = Collections.list(request.getHeaders("Content-Length"));
        boolean bodyExpected = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        return new RequestHead(request.getMethod(), path.isEmpty() ? "/" : path, authorization, length, bodyExpected,
                request.getRemoteAddr(), Collections.list(request.getHeaders("Idempotency-Key")),
                Collections.list(request.getHeaders("Request-Timeout")), receivedNanos, query);
    }

    private static void write(HttpServletResponse response, EdgeResponse answer) throws IOException {
        response.setStatus(answer.status());
        for (Header h : answer.headers()) {
            if (h.name().equalsIgnoreCase("Content-Length")) {
                continue; // the container writes it from the body
            }
            response.addHeader(h.name(), h.value());
        }
        response.setContentLength(answer.body().length);
        response.getOutputStream().write(answer.body());
        response.flushBuffer();
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** The request with its body already read: the application reads the same bytes. */
    private static final class BufferedBodyRequest extends HttpServletRequestWrapper {
        private final byte[] body;

        BufferedBodyRequest(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("the body was read before the handler");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }
            };
        }

        @Override
        public java.io.BufferedReader getReader() {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(),
                    getCharacterEncoding() != null ? java.nio.charset.Charset.forName(getCharacterEncoding())
                            : java.nio.charset.StandardCharsets.UTF_8));
        }
    }
}
