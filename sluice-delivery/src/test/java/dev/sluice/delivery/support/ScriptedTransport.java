package dev.sluice.delivery.support;

import dev.sluice.delivery.ResponseClass;
import dev.sluice.delivery.spi.TransportResult;
import dev.sluice.delivery.spi.WebhookRequest;
import dev.sluice.delivery.spi.WebhookTransport;
import dev.sluice.wire.http.HttpFields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * A transport for tests: records every request and answers by a script of
 * (idempotency key, how many requests that key has had including this one) → result.
 * Defaults to 200 for everything.
 */
public final class ScriptedTransport implements WebhookTransport {

    private final List<WebhookRequest> requests = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> perKey = new ConcurrentHashMap<>();
    private volatile BiFunction<String, Integer, TransportResult> script = (k, n) -> ok();
    private volatile Runnable duringSend = () -> { };

    public static TransportResult ok() {
        return status(200);
    }

    public static TransportResult status(int code, String... headers) {
        return new TransportResult.Answered(code, HttpFields.of(headers), Duration.ofMillis(1));
    }

    public static TransportResult timeout() {
        return new TransportResult.Failed(ResponseClass.TIMEOUT, "no answer within 3000 ms", Duration.ofSeconds(3));
    }

    public static TransportResult refused() {
        return new TransportResult.Failed(ResponseClass.CONNECTION_FAILED, "connect failed", Duration.ofMillis(1));
    }

    /** Answers every request with {@code result}. */
    public ScriptedTransport always(TransportResult result) {
        script = (k, n) -> result;
        return this;
    }

    /** Answers by {@code f(key, requestNumberForKey)}. */
    public ScriptedTransport answer(BiFunction<String, Integer, TransportResult> f) {
        script = f;
        return this;
    }

    /** Runs {@code r} inside every send, before answering (to move a fake clock, say). */
    public ScriptedTransport duringSend(Runnable r) {
        duringSend = r;
        return this;
    }

    @Override
    public TransportResult send(WebhookRequest request, Duration timeout) {
        requests.add(request);
        String key = request.headers().first("Idempotency-Key").orElseThrow();
        int n = perKey.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        duringSend.run();
        return script.apply(key, n);
    }

    public List<WebhookRequest> requests() {
        return new ArrayList<>(requests);
    }

    /** Requests that carried {@code key}. */
    public int requestsFor(String key) {
        AtomicInteger n = perKey.get(key);
        return n == null ? 0 : n.get();
    }

    public int count() {
        return requests.size();
    }
}
