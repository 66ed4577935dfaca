package dev.sluice.delivery.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.time.TimeSource;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;

/**
 * A webhook receiver on 127.0.0.1 for end-to-end tests: answers by a policy of (idempotency key,
 * arrival number of that key) and records every request by key, with the checks a real receiver
 * would want: was a Retry-After it asked for undercut, did a key arrive again after it had
 * answered 2xx, was a key in flight twice at once. Delayed and hung answers are scheduled, never
 * slept on. Thread-safe.
 */
public final class TestReceiver implements AutoCloseable {

    /** What to answer. */
    public sealed interface Answer {
    }

    /** {@code status} at once, with {@code Retry-After: retryAfterSeconds} when that is &gt; 0. */
    public record Respond(int status, int retryAfterSeconds) implements Answer {
    }

    /** 200 after {@code delay} (a slow receiver). */
    public record Slow(Duration delay) implements Answer {
    }

    /** Nothing until {@code closeAfter}, then the connection is closed without an answer. */
    public record Hang(Duration closeAfter) implements Answer {
    }

    /** One request as the receiver saw it. */
    public record Arrival(String key, Instant at, Answer answer, Instant answeredAt) {
    }

    private final HttpServer server;
    private final ExecutorService handlers = Executors.newFixedThreadPool(32);
    private final ScheduledExecutorService later = Executors.newScheduledThreadPool(2);
    private final TimeSource time = TimeSource.system();
    private final BiFunction<String, Integer, Answer> policy;

    private final Map<String, List<Arrival>> byKey = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> arrivals = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<String, Instant> notBefore = new ConcurrentHashMap<>();
    private final Map<String, Instant> firstSuccess = new ConcurrentHashMap<>();
    private final List<String> undercuts = Collections.synchronizedList(new ArrayList<>());
    private final List<String> overlaps = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong requests = new AtomicLong();

    /**
     * @param policy (key, arrival number of that key starting at 1) → answer
     */
    public TestReceiver(BiFunction<String, Integer, Answer> policy) throws IOException {
        this.policy = policy;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
        server.start();
    }

    /** A receiver that answers 200 at once to everything. */
    public static TestReceiver immediate() throws IOException {
        return new TestReceiver((k, n) -> new Respond(200, 0));
    }

    public URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    private void handle(HttpExchange x) throws IOException {
        Instant at = time.now();
        requests.incrementAndGet();
        try (InputStream in = x.getRequestBody()) {
            in.readAllBytes();
        }
        String key = x.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null) {
            x.sendResponseHeaders(400, -1);
            x.close();
            return;
        }
        Instant nb = notBefore.get(key);
        if (nb != null && at.isBefore(nb)) {
            undercuts.add(key + " arrived " + Duration.between(at, nb).toMillis() + " ms before its Retry-After");
        }
        if (inFlight.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() > 1) {
            overlaps.add(key);
        }
        int n = arrivals.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        Answer answer = firstSuccess.containsKey(key) ? new Respond(200, 0) : policy.apply(key, n);
        switch (answer) {
            case Respond r -> answer(x, key, at, r);
            case Slow s -> later.schedule(() -> {
                try {
                    answer(x, key, at, new Respond(200, 0));
                } catch (IOException ignored) {
                    // the worker gave up on it
                }
            }, s.delay().toNanos(), TimeUnit.NANOSECONDS);
            case Hang h -> {
                record(key, new Arrival(key, at, h, null));
                later.schedule(() -> {
                    inFlight.get(key).decrementAndGet();
                    x.close();
                }, h.closeAfter().toNanos(), TimeUnit.NANOSECONDS);
            }
        }
    }

    private void answer(HttpExchange x, String key, Instant at, Respond r) throws IOException {
        Instant answeredAt = time.now();
        if (r.retryAfterSeconds() > 0) {
            notBefore.put(key, answeredAt.plusSeconds(r.retryAfterSeconds()));
            x.getResponseHeaders().add("Retry-After", Integer.toString(r.retryAfterSeconds()));
        }
        if (r.status() >= 200 && r.status() <= 299) {
            firstSuccess.putIfAbsent(key, answeredAt);
        }
        record(key, new Arrival(key, at, r, answeredAt));
        inFlight.get(key).decrementAndGet();
        try {
            x.sendResponseHeaders(r.status(), -1);
        } finally {
            x.close();
        }
    }

    private void record(String key, Arrival a) {
        byKey.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(a);
    }

    /** Every arrival of {@code key}, in order. */
    public List<Arrival> arrivals(String key) {
        List<Arrival> l = byKey.get(key);
        if (l == null) {
            return List.of();
        }
        synchronized (l) {
            return List.copyOf(l);
        }
    }

    /** Keys seen at least once. */
    public List<String> keys() {
        return List.copyOf(byKey.keySet());
    }

    /** When {@code key} was first answered 2xx, or {@code null}. */
    public Instant firstSuccess(String key) {
        return firstSuccess.get(key);
    }

    /** Arrivals that came before the Retry-After this receiver had asked of that key. */
    public List<String> undercuts() {
        return List.copyOf(undercuts);
    }

    /** Keys that arrived while an earlier request of the same key was still open. */
    public List<String> overlaps() {
        return List.copyOf(overlaps);
    }

    public long requests() {
        return requests.get();
    }

    @Override
    public void close() {
        server.stop(0);
        later.shutdownNow();
        handlers.shutdownNow();
    }
}
